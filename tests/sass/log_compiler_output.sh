#!/usr/bin/env bash
# CUDA compiler launcher (CMAKE_CUDA_COMPILER_LAUNCHER): runs the compile command it is given, passes the
# compiler's messages through, and keeps a copy of them next to the object file as <object>.log, so a test
# can read what ptxas said about a kernel (it reports serialized wgmma only there).
object=""
previous=""
for argument in "$@"; do
  [ "$previous" = "-o" ] && object=$argument
  previous=$argument
done
[ -n "$object" ] || exec "$@"
"$@" 2>"$object.log"
status=$?
cat "$object.log" >&2
exit $status
