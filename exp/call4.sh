#!/usr/bin/env bash
set -u
FINAL=$OUT
OUT=$(mktemp -d)
shapes=3776x1216x5200,1912x2272x2592,736x3504x6704,688x3424x8480,464x10272x4640,7816x1248x3424,3016x8672x3376,512x4752x4416,2840x1712x1376,7568x1584x3616,1200x2032x6192,4496x2240x4528,1224x1824x12640,1872x2096x1984,1080x1968x3376,2192x1904x1344
i=0
for w in 144 160 176 184 184 176 160 144; do
  i=$((i+1)); run=r$(( i <= 4 ? 1 : 2 ))
  GEMM_EXP_PP_WIDTH=$w ./exp/bin/gemm compare --kernels 14 --reps 20 --seed 2026121$i --shapes $shapes --out $OUT/${run}_w$w > $OUT/${run}_w$w.log 2>&1
  echo "$run width $w rc=$?"
done
python3 exp/variant.py $OUT
tar czf $FINAL/call4.tgz -C $OUT .
