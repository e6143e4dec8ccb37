import csv, sys, math
out = sys.argv[1]
pairs = {}
for line in open('exp/variant_shapes.txt'):
    key, a, b = line.split(); pairs[key] = (int(a), int(b))
for run in ('r1', 'r2'):
    sp = {}
    for w in (144, 160, 176, 184):
        for r in csv.DictReader(open(f'{out}/{run}_w{w}/compare.csv')):
            if r['kernel'] != '0': sp[(f"{r['m']}x{r['n']}x{r['k']}", w)] = float(r['vs_cublas'])
    ratios = []
    for key, (a, b) in pairs.items():
        t = sp[(key, a)] / sp[(key, b)]; ratios.append(t)
        print(run, key, f'{a}->{b}', f't_new/t_old {t:.3f}', f'new vs cuBLAS {sp[(key, b)]:.3f}')
    print(run, 'geomean', round(math.exp(sum(map(math.log, ratios)) / len(ratios)), 3), 'max', round(max(ratios), 3))
