#!/usr/bin/env bash
# Runs the differential tester against the cluster in PGHOST/PGPORT.
#   test/differential/run.sh [seeds] [steps]   (default 4 x 150; IVM_DT_SEEDS, IVM_DT_STEPS)
# Each seed also creates IVM_DT_RANDOM (default 12, 0: none) random views
# (random_views.sql) from a base seed, printed (fixed for the quick run, drawn
# afresh with IVM_DT_RANDOM_FRESH=1); IVM_DT_RANDOM_SEED=<it> repeats them.  A definition must be refused with
# 0A000 or maintained exactly; IVM_DT_RANDOM_TOLERATE=42P01,... counts those
# SQLSTATEs of create_view as refusals too (to look past known bugs).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
seeds=${1:-${IVM_DT_SEEDS:-4}}  # ./run.sh test-long: 25
steps=${2:-${IVM_DT_STEPS:-150}}
random=${IVM_DT_RANDOM:-12}
# The quick run (./run.sh test) keeps a base seed that passes, so a known
# bug does not fail CI at random; ./run.sh test-long (IVM_DT_RANDOM_FRESH=1)
# draws one afresh to hunt for new ones.
if [ "${IVM_DT_RANDOM_FRESH:-0}" = 1 ]; then
    random_base=${IVM_DT_RANDOM_SEED:-$(( (RANDOM * 32768 + RANDOM) % 2000000 + 1 ))}
else
    random_base=${IVM_DT_RANDOM_SEED:-662142}
fi
db=ivm_differential
psql=(/usr/lib/postgresql/15/bin/psql -X -q -v ON_ERROR_STOP=1)
# The checks run the views' queries on tiny, often truncated tables whose
# stale statistics would make every check pay for JIT compilation.
export PGOPTIONS="${PGOPTIONS:-} -c jit=off"

"${psql[@]}" -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
"${psql[@]}" -d $db -c "CREATE EXTENSION ivm" -f "$here/tester.sql" -f "$here/random_views.sql" >/dev/null
if [ "$random" -gt 0 ]; then
    echo "differential: random definitions from seed $random_base (IVM_DT_RANDOM_SEED=$random_base repeats them)"
fi

failed=0
passed=0
for seed in $(seq 1 "$seeds"); do
    # every third seed rebuilds the views' storage on every change instead
    # of merging deltas (ivm.rebuild_fraction = 0), so both ways are checked
    # (nearly all in place: few of these views hold ivm.swap_min_tuples
    # tuples; swaps are checked by sql/swap.sql and the concurrent suite)
    rebuild=0.5
    if [ $((seed % 3)) -eq 0 ]; then rebuild=0; fi
    # every third seed from the second plans every change for its size
    # (ivm.large_change_rows = 0), as it plans changes of many rows
    # (odd ones of the rebuilding seeds too: then every statement on a
    # table whose views all rebuild starts without its transition rows,
    # src/pg/large_statements.hpp, and they are computed anew)
    large=5000
    if [ $((seed % 3)) -eq 2 ] || [ $((seed % 6)) -eq 3 ]; then large=0; fi
    # odd seeds check every deletion's over-deleted tuples in recursive
    # views by backward/forward (ivm.backward_forward = on), even ones
    # leave it to its cost rule, which these small tables keep on DRed's
    # rederivation
    bf=auto
    if [ $((seed % 2)) -eq 1 ]; then bf=on; fi
    # the tables' first rows are drawn from the seed too, so that a run
    # repeats (IVM_DT_SEEDS picks which); the random views' seed: the run's
    # base and this seed
    random_seed=$((random_base * 1000 + seed % 1000))
    if out=$("${psql[@]}" -d $db -c "SET client_min_messages = warning" -c "SET ivm.rebuild_fraction = $rebuild" -c "SET ivm.large_change_rows = $large" -c "SET ivm.backward_forward = $bf" \
                 -c "SET ivm_dt.tolerate = '${IVM_DT_RANDOM_TOLERATE:-}'" \
                 -c "CALL ivm_dt.drop_views()" \
                 -c "SELECT setseed($seed / 1000.0)" -c "CALL ivm_dt.reset_tables()" -f "$here/views.sql" \
                 -c "CALL ivm_dt.create_random_views($random_seed, $random)" -c "CALL ivm_dt.compile_checks()" \
                 -c "CALL ivm_dt.run($seed, $steps)" 2>&1 >/dev/null); then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "differential: seed $seed FAILED (random views from seed $random_seed)"
        echo "$out" | sed 's/^/    /'
        # the definitions of the random views the failure names, or of all
        # of this seed's if it names no view (an error in maintenance)
        named=$(echo "$out" | grep -o 'dt_rand_[0-9]*' | sed 's/dt_rand_//' | sort -un | paste -sd, -)
        if [ -n "$named" ] || ! grep -q 'differs from its query' <<<"$out"; then
            "${psql[@]}" -d $db -At -F ': ' -c "SELECT 'dt_rand_' || k, definition FROM ivm_dt.random_views
                     WHERE seed = $random_seed AND accepted AND ${named:+k IN ($named) AND} true ORDER BY k" \
                | sed 's/^/    random view /' || true
        fi
    fi
done
echo "differential: $seeds seeds x $steps statements, $passed passed, $failed failed"
if [ "$random" -gt 0 ]; then
    "${psql[@]}" -d $db -At -c "SELECT format('differential: random definitions: %s accepted, %s refused (0A000)%s',
                                              count(*) FILTER (WHERE accepted), count(*) FILTER (WHERE NOT accepted AND message NOT LIKE 'tolerated %'),
                                              ', ' || nullif(count(*) FILTER (WHERE message LIKE 'tolerated %'), 0) || ' tolerated errors')
                                  FROM ivm_dt.random_views" \
        -c "SELECT format('    %s x %s', count(*), m) FROM (SELECT regexp_replace(regexp_replace(message, 'dt_rand_[0-9]+', 'dt_rand_K', 'g'),
                                                                                  '\m([xw])[0-9]+\M', '\1N', 'g') AS m
                                                    FROM ivm_dt.random_views WHERE NOT accepted) x
             GROUP BY m ORDER BY count(*) DESC, m LIMIT 5"
fi
[ "$failed" -eq 0 ]
