-- tpch_generate(scale): fills the TPC-H tables of schema.sql deterministically
-- (setseed, then one plan per table, no parallel workers) with the value
-- domains of the TPC-H specification, clause 4.2.3, close enough that every
-- query's predicates select rows at small scales:
--   * table sizes are the spec's times scale, with floors (100 suppliers,
--     20 parts per supplier, 150 customers, 1,500 orders) so that each
--     nation has suppliers and customers; lineitem has 1-7 lines an order
--     (about 6,000 rows at the default scale 0.001);
--   * foreign keys are skewed: lineitem's part is 1 + floor(P * r^2.5)
--     (part 1 has about 5% of all lines) and its supplier one of the part's
--     four (spec formula), orders' customer likewise skewed over the
--     customers whose key is not a multiple of 3 (those never order: Q13,
--     Q22);
--   * the three hottest parts carry the attributes Q2, Q8, Q14, Q16, Q17,
--     Q19 and Q20 select on, and the rest lean towards them (Brand#23,
--     MED BOX, size 15, ECONOMY ANODIZED STEEL, names beginning 'forest';
--     AIR is twice as frequent a ship mode as the others: Q19);
--   * comments contain 'special ... requests' (orders, 10%) and
--     'Customer ... Complaints' / 'Customer ... Recommends' (suppliers, 5%
--     each) as the spec's do.
-- The helper functions tpch_* are volatile so that each row draws anew.

CREATE OR REPLACE FUNCTION tpch_int(lo int, hi int) RETURNS int
LANGUAGE sql VOLATILE AS $$ SELECT lo + floor(random() * (hi - lo + 1))::int $$;

CREATE OR REPLACE FUNCTION tpch_pick(items text[]) RETURNS text
LANGUAGE sql VOLATILE AS $$ SELECT items[1 + floor(random() * cardinality(items))::int] $$;

CREATE OR REPLACE FUNCTION tpch_money(lo numeric, hi numeric) RETURNS numeric
LANGUAGE sql VOLATILE AS $$ SELECT round(lo + (hi - lo) * random()::numeric, 2) $$;

-- a digit string of n digits
CREATE OR REPLACE FUNCTION tpch_digits(n int) RETURNS text
LANGUAGE sql VOLATILE AS $$ SELECT lpad(floor(random() * 10 ^ n)::bigint::text, n, '0') $$;

-- spec 4.2.2.9: country code (nation key + 10), then 3, 3 and 4 digits
CREATE OR REPLACE FUNCTION tpch_phone(nationkey int) RETURNS text
LANGUAGE sql VOLATILE AS $$
    SELECT (nationkey + 10)::text || '-' || tpch_int(100, 999) || '-' || tpch_int(100, 999) || '-' || tpch_int(1000, 9999)
$$;

-- spec 4.2.2.7: a random alphanumeric string of 10 to 40 characters
CREATE OR REPLACE FUNCTION tpch_address() RETURNS text
LANGUAGE sql VOLATILE AS $$
    SELECT left(md5(random()::text) || md5(random()::text), tpch_int(10, 40))
$$;

-- n words of the spec's text grammar (without 'special', 'requests',
-- 'Customer', 'Complaints', which are placed where the queries look for them),
-- cut to at most len characters
CREATE OR REPLACE FUNCTION tpch_text(n int, len int) RETURNS text
LANGUAGE sql VOLATILE AS $$
    SELECT left(string_agg(tpch_pick('{furiously,quickly,carefully,blithely,slyly,fluffily,final,regular,
        express,pending,ironic,even,bold,silent,unusual,deposits,packages,accounts,foxes,ideas,theodolites,
        pinto,beans,instructions,dependencies,excuses,platelets,asymptotes,courts,dolphins,multipliers,
        sauternes,warthogs,frets,dinos,attainments,somas,Tiresias,patterns,forges,braids,frays,warhorses,
        dugouts,epitaphs,pearls,tithes,waters,orbits,gifts,sheaves,depths,sentiments,decoys,realms,pains,
        grouches,escapades,sleep,wake,are,cajole,haggle,nag,use,boost,affix,detect,integrate,maintain,nod,
        was,lose,sublate,solve,thrash,promise,engage,hinder,print,breach,eat,grow,impress,mold,poach,serve,
        run,dazzle,snooze,doze,unwind,kindle,play,hang,believe,doubt,about,above,across,after,against,along,
        among,around,at,atop,before,behind,beneath,beside,between,beyond,by,despite,during,except,for,from,
        inside,into,near,of,on,outside,over,past,since,through,to,toward,under,until,upon,with,within}'::text[]),
        ' '), len)
    FROM generate_series(1, n)
$$;

-- spec 4.2.3, P_NAME: n distinct words of the 92 colours
CREATE OR REPLACE FUNCTION tpch_colors(n int) RETURNS text
LANGUAGE sql VOLATILE AS $$
    SELECT string_agg(c, ' ') FROM (
        SELECT c FROM unnest('{almond,antique,aquamarine,azure,beige,bisque,black,blanched,blue,blush,
            brown,burlywood,burnished,chartreuse,chiffon,chocolate,coral,cornflower,cornsilk,cream,cyan,dark,
            deep,dim,dodger,drab,firebrick,floral,forest,frosted,gainsboro,ghost,goldenrod,green,grey,
            honeydew,hot,indian,ivory,khaki,lace,lavender,lawn,lemon,light,lime,linen,magenta,maroon,medium,
            metallic,midnight,mint,misty,moccasin,navajo,navy,olive,orange,orchid,pale,papaya,peach,peru,pink,
            plum,powder,puff,purple,red,rose,rosy,royal,saddle,salmon,sandy,seashell,sienna,sky,slate,smoke,
            snow,spring,steel,tan,thistle,tomato,turquoise,violet,wheat,white,yellow}'::text[]) c
        ORDER BY random() LIMIT n) w
$$;

CREATE OR REPLACE PROCEDURE tpch_generate(scale float8 DEFAULT 0.001)
LANGUAGE plpgsql
SET max_parallel_workers_per_gather = 0
AS $$
DECLARE
    n_supp int := greatest(100, round(10000 * scale))::int;
    n_part int := 20 * greatest(100, round(10000 * scale))::int;   -- spec: 20 per supplier
    n_cust int := greatest(150, round(150000 * scale))::int;
    n_ord  int := greatest(1500, round(1500000 * scale))::int;
    n_clerk int := greatest(10, round(1000 * scale))::int;
    current_date_ date := date '1995-06-17';                   -- spec's CURRENTDATE
BEGIN
    PERFORM setseed(0.4213);
    TRUNCATE region, nation, supplier, customer, part, partsupp, orders, lineitem;

    INSERT INTO region
    SELECT k - 1, name, tpch_text(12, 152)
    FROM unnest('{AFRICA,AMERICA,ASIA,EUROPE,MIDDLE EAST}'::text[]) WITH ORDINALITY AS r(name, k);

    INSERT INTO nation
    SELECT k - 1, name, region, tpch_text(12, 152)
    FROM unnest('{ALGERIA,ARGENTINA,BRAZIL,CANADA,EGYPT,ETHIOPIA,FRANCE,GERMANY,INDIA,INDONESIA,IRAN,IRAQ,
                  JAPAN,JORDAN,KENYA,MOROCCO,MOZAMBIQUE,PERU,CHINA,ROMANIA,SAUDI ARABIA,VIETNAM,RUSSIA,
                  UNITED KINGDOM,UNITED STATES}'::text[],
                '{0,1,1,1,4,0,3,3,2,2,4,4,2,4,0,0,0,1,2,3,4,2,3,3,1}'::int[]) WITH ORDINALITY AS n(name, region, k);

    -- the first 25 suppliers and customers cover the nations, and suppliers
    -- 26 to 50 again in another order (the four suppliers of a part are
    -- suppliers k, k + 25 + q, ...), the rest are random
    INSERT INTO supplier
    SELECT s, 'Supplier#' || lpad(s::text, 9, '0'), tpch_address(), nat, tpch_phone(nat),
           tpch_money(-999.99, 9999.99),
           CASE WHEN c < 0.05 THEN left(tpch_text(2, 40) || ' Customer ' || tpch_text(2, 40) || ' Complaints', 101)
                WHEN c < 0.10 THEN left(tpch_text(2, 40) || ' Customer ' || tpch_text(2, 40) || ' Recommends', 101)
                ELSE tpch_text(10, 101) END
    FROM (SELECT s, CASE WHEN s <= 25 THEN s - 1 WHEN s <= 50 THEN ((s - 26) * 7 + 3) % 25 ELSE tpch_int(0, 24) END AS nat,
                 random() AS c
          FROM generate_series(1, n_supp) s OFFSET 0) x;

    INSERT INTO customer
    SELECT c, 'Customer#' || lpad(c::text, 9, '0'), tpch_address(), nat, tpch_phone(nat),
           tpch_money(-999.99, 9999.99),
           tpch_pick('{AUTOMOBILE,BUILDING,FURNITURE,MACHINERY,HOUSEHOLD}'), tpch_text(12, 117)
    FROM (SELECT c, CASE WHEN c <= 25 THEN c - 1 ELSE tpch_int(0, 24) END AS nat
          FROM generate_series(1, n_cust) c OFFSET 0) x;

    INSERT INTO part
    SELECT p, name, 'Manufacturer#' || left(brand, 1), 'Brand#' || brand, type, size, container,
           (90000 + ((p / 10) % 20001) + 100 * (p % 1000)) / 100.0, tpch_text(3, 23)
    FROM (SELECT p,
                 CASE p WHEN 1 THEN 'forest green ' || tpch_colors(3)
                        ELSE CASE WHEN random() < 0.1 THEN 'forest ' || tpch_colors(4) ELSE tpch_colors(5) END END AS name,
                 CASE p WHEN 1 THEN '23' WHEN 2 THEN '12' WHEN 3 THEN '34'
                        ELSE CASE WHEN random() < 0.1 THEN '23' ELSE tpch_int(1, 5)::text || tpch_int(1, 5) END END AS brand,
                 CASE p WHEN 1 THEN 'PROMO BRUSHED STEEL' WHEN 2 THEN 'ECONOMY ANODIZED STEEL' WHEN 3 THEN 'STANDARD POLISHED BRASS'
                        ELSE CASE WHEN random() < 0.05 THEN 'ECONOMY ANODIZED STEEL'
                                  ELSE tpch_pick('{STANDARD,SMALL,MEDIUM,LARGE,ECONOMY,PROMO}') || ' '
                                       || tpch_pick('{ANODIZED,BURNISHED,PLATED,POLISHED,BRUSHED}') || ' '
                                       || tpch_pick('{TIN,NICKEL,BRASS,STEEL,COPPER}') END END AS type,
                 CASE p WHEN 1 THEN 7 WHEN 2 THEN 3 WHEN 3 THEN 15
                        ELSE CASE WHEN random() < 0.05 THEN 15 ELSE tpch_int(1, 50) END END AS size,
                 CASE p WHEN 1 THEN 'MED BOX' WHEN 2 THEN 'SM PKG' WHEN 3 THEN 'LG CASE'
                        ELSE CASE WHEN random() < 0.1 THEN 'MED BOX'
                                  ELSE tpch_pick('{SM,LG,MED,JUMBO,WRAP}') || ' '
                                       || tpch_pick('{CASE,BOX,BAG,JAR,PKG,PACK,CAN,DRUM}') END END AS container
          FROM generate_series(1, n_part) p OFFSET 0) x;

    -- spec 4.2.3: the four suppliers of part p
    INSERT INTO partsupp
    SELECT p, (p + i * (n_supp / 4 + (p - 1) / n_supp)) % n_supp + 1,
           tpch_int(1, 9999), tpch_money(1.00, 1000.00), tpch_text(20, 199)
    FROM generate_series(1, n_part) p, generate_series(0, 3) i
    ORDER BY p, i
    ON CONFLICT DO NOTHING;

    CREATE TEMP TABLE tpch_orders ON COMMIT DROP AS
    SELECT o, 3 * (k / 2) + k % 2 + 1 AS cust,
           date '1992-01-01' + tpch_int(0, date '1998-08-02' - date '1992-01-01') AS orderdate,
           tpch_int(1, 7) AS lines
    FROM (SELECT o, floor((n_cust * 2 / 3) * random() ^ 2)::int AS k
          FROM generate_series(1, n_ord) o OFFSET 0) x;

    INSERT INTO lineitem
    SELECT o, part, (part + i * (n_supp / 4 + (part - 1) / n_supp)) % n_supp + 1, line,
           quantity, quantity * (90000 + ((part / 10) % 20001) + 100 * (part % 1000)) / 100.0,
           discount, tax,
           CASE WHEN shipdate + receipt <= current_date_ THEN tpch_pick('{R,A}') ELSE 'N' END,
           CASE WHEN shipdate > current_date_ THEN 'O' ELSE 'F' END,
           shipdate, orderdate + tpch_int(30, 90), shipdate + receipt,
           tpch_pick('{DELIVER IN PERSON,COLLECT COD,NONE,TAKE BACK RETURN}'),
           tpch_pick('{REG AIR,AIR,AIR,RAIL,SHIP,TRUCK,MAIL,FOB}'), tpch_text(5, 44)
    FROM (SELECT o, line, orderdate, 1 + floor(n_part * random() ^ 2.5)::int AS part, tpch_int(0, 3) AS i,
                 tpch_int(1, 50) AS quantity, tpch_int(0, 10) / 100.0 AS discount, tpch_int(0, 8) / 100.0 AS tax,
                 orderdate + tpch_int(1, 121) AS shipdate, tpch_int(1, 30) AS receipt
          FROM tpch_orders, generate_series(1, lines) line
          ORDER BY o, line OFFSET 0) x;

    INSERT INTO orders
    SELECT o, cust,
           CASE WHEN bool_and(l_linestatus = 'F') THEN 'F' WHEN bool_and(l_linestatus = 'O') THEN 'O' ELSE 'P' END,
           sum(round(l_extendedprice * (1 + l_tax) * (1 - l_discount), 2)), orderdate,
           min(priority), 'Clerk#' || lpad(min(clerk)::text, 9, '0'), 0, min(comment)
    FROM (SELECT o, cust, orderdate,
                 tpch_pick('{1-URGENT,2-HIGH,3-MEDIUM,4-NOT SPECIFIED,5-LOW}') AS priority,
                 tpch_int(1, n_clerk) AS clerk,
                 CASE WHEN random() < 0.1
                      THEN tpch_text(1, 20) || ' special ' || tpch_text(2, 25) || ' requests ' || tpch_text(1, 15)
                      ELSE tpch_text(6, 79) END AS comment
          FROM tpch_orders ORDER BY o OFFSET 0) x
    JOIN lineitem ON l_orderkey = o
    GROUP BY o, cust, orderdate;
END $$;
