#!/bin/sh
# A stand-in for `ptxas -v` in tests/test_run_cli.c (test_spill_warning): prints the report
# ptxas 13.0 gives for saxpy compiled to 40 registers, with $FAKE_PTXAS_STORES and
# $FAKE_PTXAS_LOADS bytes of spill code (default 0), whatever the arguments.
stores=${FAKE_PTXAS_STORES:-0}
loads=${FAKE_PTXAS_LOADS:-0}
cat <<REPORT
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'saxpy' for 'sm_90'
ptxas info    : Function properties for saxpy
    520 bytes stack frame, $stores bytes spill stores, $loads bytes spill loads
ptxas info    : Used 40 registers, used 0 barriers, 520 bytes cumulative stack size
REPORT
