#!/usr/bin/env bash
# TPC-H-shaped differential test: the eight TPC-H tables filled at a small
# scale (generate.sql), the 22 TPC-H queries (queries/qNN.sql) given to
# ivm.create_view, then the changes of statements.sql (the refresh
# functions RF1 and RF2, an UPDATE of every table) applied one transaction at
# a time, every ivm view compared with its query after each.
#   test/tpch/run.sh [scale]      (default 0.001: about 6,000 lineitems)
# Fails when a query is not valid SQL, create_view fails other than by
# refusing the query (SQLSTATE 0A000), a statement fails, a view differs from
# its query, or the refused queries are not those listed in test/tpch/refused
# (one query name a line, '#' comments): a query newly refused or newly
# accepted is noticed and the file updated.
# Runs against the cluster in PGHOST/PGPORT, in its own database ivm_tpch.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../lib.sh"
scale=${1:-0.001}
[[ $scale =~ ^[0-9]*\.?[0-9]+([eE]-?[0-9]+)?$ ]] || { echo "tpch: scale must be a number, not '$scale'"; exit 2; }
db=ivm_tpch
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# create_view's NOTICEs are not wanted; the checks run queries on tables
# whose statistics lag behind, better without JIT compilation
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning -c jit=off"

fail() { echo "tpch: FAILED: $*"; exit 1; }
indent() { sed 's/^/    /'; }
# difference VIEW: up to 20 of the rows the view has and its query has not
# (extra) and the other way round (missing); and the view a part is part of
difference() {
    "${psql[@]}" -d $db -At -F ' ' -v view="$1" <<'SQL' 2>&1 | indent
SELECT 'part of ' || part_of::text FROM ivm.views WHERE name::text = :'view' AND part_of IS NOT NULL;
SELECT format('SELECT ''extra:  '', t::text FROM (SELECT * FROM %1$s EXCEPT ALL SELECT * FROM %2$s) t
               UNION ALL
               SELECT ''missing:'', t::text FROM (SELECT * FROM %2$s EXCEPT ALL SELECT * FROM %1$s) t LIMIT 20',
              name, query_view)
FROM ivm.views WHERE name::text = :'view' \gexec
SQL
}
# check: every view equal to its query, or fail naming WHEN and the difference
check() {
    local out view
    if ! out=$(check_views $db 2>&1); then
        view=$(sed -n 's/.*view \(.*\) differs from its query.*/\1/p' <<<"$out" | head -1)
        fail "$1"$'\n'"$(indent <<<"$out")"$'\n'"$([ -z "$view" ] || difference "$view")"$'\n'"(database $db kept)"
    fi
}

"${psql[@]}" -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
"${psql[@]}" -d $db -c "CREATE EXTENSION ivm" -f "$here/schema.sql" -f "$here/generate.sql" \
    -c "CALL tpch_generate($scale)" -c "ANALYZE" >/dev/null
# every top-level view's row count and a digest of its rows, to tell which
# views a statement changed
"${psql[@]}" -d $db >/dev/null <<'SQL'
CREATE FUNCTION tpch_fingerprints() RETURNS TABLE (vname text, nrows bigint, digest text)
LANGUAGE plpgsql AS $$
DECLARE v record;
BEGIN
    FOR v IN SELECT name FROM ivm.views WHERE part_of IS NULL AND populated ORDER BY name::text LOOP
        vname := v.name::text;
        EXECUTE format('SELECT count(*), md5(coalesce(string_agg(t::text, '';'' ORDER BY t::text), '''')) FROM %s t',
                       v.name) INTO nrows, digest;
        RETURN NEXT;
    END LOOP;
END $$;
SQL

# the queries: each must run; then create_view, which may refuse it (0A000)
accepted=()
refused=()
declare -A refusal rows
for file in "$here"/queries/q[0-9][0-9].sql; do
    q=$(basename "$file" .sql)
    # the query without its comment lines and trailing semicolon
    query=$(grep -v '^[[:space:]]*--' "$file" | sed '$ s/;[[:space:]]*$//')
    n=$("${psql[@]}" -d $db -At -v query="$query" <<<"SELECT count(*) FROM (:query) q" 2>&1) \
        || fail "$q is not a valid query:"$'\n'"$(indent <<<"$n")"
    rows[$q]=$n
    out=$("${psql[@]}" -d $db -At -v ON_ERROR_STOP=0 -v name="$q" -v query="$query" 2>"$work/stderr" <<'SQL'
SELECT ivm.create_view(:'name', :'query');
\if :ERROR
\echo refused :LAST_ERROR_SQLSTATE :LAST_ERROR_MESSAGE
\endif
SQL
) || fail "create_view('$q'):"$'\n'"$(cat "$work/stderr" | indent)"
    if [[ $out == refused\ * ]]; then
        read -r _ state message <<<"$out"
        [ "$state" = 0A000 ] || fail "create_view('$q') failed with $state: $message"
        refused+=("$q")
        refusal[$q]=$message
    else
        [ "$out" = "$n" ] || fail "create_view('$q') says $out rows, the query returns $n"
        accepted+=("$q")
    fi
done
check "after create_view:"
"${psql[@]}" -d $db -At -F ' ' -c "SELECT * FROM tpch_fingerprints()" >"$work/before"

# the statements: units separated by blank lines, each one transaction
declare -A changed
units=0
unit=""
run_unit() {
    [ -n "$unit" ] || return 0
    # a unit of comment lines only (the file's header) is no statement
    printf '%s' "$unit" | grep -v '^[[:space:]]*--' | grep -q '[^[:space:]]' || { unit=""; return 0; }
    units=$((units + 1))
    unit=${unit%$'\n'}
    label=$(grep -m1 '^[[:space:]]*--' <<<"$unit" | sed 's/^[[:space:]]*--[[:space:]]*//')
    out=$("${psql[@]}" -d $db --single-transaction -f - <<<"$unit" 2>&1) \
        || fail "statement $units ($label) failed:"$'\n'"$(indent <<<"$unit")"$'\n'"$(indent <<<"$out")"
    check "after statement $units:"$'\n'"$(indent <<<"$unit")"
    "${psql[@]}" -d $db -At -F ' ' -c "SELECT * FROM tpch_fingerprints()" >"$work/after"
    local views
    views=$(LC_ALL=C join "$work/before" "$work/after" | awk '$2 != $4 || $3 != $5 { print $1 }')
    for v in $views; do changed[$v]=$(( ${changed[$v]:-0} + 1 )); done
    printf '  %2d %-70.70s changed: %s\n' "$units" "$label" "$(echo $views)"
    mv "$work/after" "$work/before"
    unit=""
}
echo "tpch: scale $scale, statements (each followed by the check of every view):"
while IFS= read -r line || [ -n "$line" ]; do
    if [[ -z ${line//[[:space:]]/} ]]; then
        run_unit
    else
        unit+="$line"$'\n'
    fi
done <"$here/statements.sql"
run_unit

echo "tpch: rows per query on the generated data:" $(for q in "${!rows[@]}"; do echo "$q=${rows[$q]}"; done | sort)
echo "tpch: statements that changed each view:" \
     $(for q in "${accepted[@]}"; do echo "$q=${changed[$q]:-0}"; done)
echo "tpch: ${#accepted[@]} of $((${#accepted[@]} + ${#refused[@]})) queries maintained, $units statements," \
     "every view equal to its query after each ($SECONDS s)"
for q in "${refused[@]}"; do echo "  refused $q: ${refusal[$q]}"; done

# the refused set must be the expected one
printf '%s\n' "${refused[@]}" | sed '/^$/d' | sort >"$work/refused"
sed -e 's/#.*//' "$here/refused" | awk 'NF { print $1 }' | sort >"$work/expected"
if ! cmp -s "$work/refused" "$work/expected"; then
    echo "tpch: FAILED: the refused queries are not those in test/tpch/refused"
    comm -13 "$work/expected" "$work/refused" | sed 's/^/    newly refused: /'
    comm -23 "$work/expected" "$work/refused" | sed 's/^/    now accepted:  /'
    exit 1
fi
