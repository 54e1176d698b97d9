#!/usr/bin/env bash
# Runs the differential tester against the cluster in PGHOST/PGPORT.
#   test/differential/run.sh [seeds] [steps]   (default 4 x 150; IVM_DT_SEEDS, IVM_DT_STEPS)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
seeds=${1:-${IVM_DT_SEEDS:-4}}  # ./run.sh test-long: 25
steps=${2:-${IVM_DT_STEPS:-150}}
db=ivm_differential
psql=(/usr/lib/postgresql/15/bin/psql -X -q -v ON_ERROR_STOP=1)
# The checks run the views' queries on tiny, often truncated tables whose
# stale statistics would make every check pay for JIT compilation.
export PGOPTIONS="${PGOPTIONS:-} -c jit=off"

"${psql[@]}" -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
"${psql[@]}" -d $db -c "CREATE EXTENSION ivm" -f "$here/tester.sql" >/dev/null

failed=0
passed=0
for seed in $(seq 1 "$seeds"); do
    # every third seed rebuilds the views' storage on every change instead
    # of merging deltas (ivm.rebuild_fraction = 0), so both ways are checked
    rebuild=0.5
    if [ $((seed % 3)) -eq 0 ]; then rebuild=0; fi
    if out=$("${psql[@]}" -d $db -c "SET client_min_messages = warning" -c "SET ivm.rebuild_fraction = $rebuild" \
                 -c "SELECT ivm.drop_view(name::text) FROM ivm.views WHERE part_of IS NULL ORDER BY name::oid DESC" \
                 -c "CALL ivm_dt.reset_tables()" -f "$here/views.sql" -c "CALL ivm_dt.compile_checks()" \
                 -c "CALL ivm_dt.run($seed, $steps)" 2>&1 >/dev/null); then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "differential: seed $seed FAILED"
        echo "$out" | sed 's/^/    /'
    fi
done
echo "differential: $seeds seeds x $steps statements, $passed passed, $failed failed"
[ "$failed" -eq 0 ]
