"""``memoryhub_keyword_matches(bank, query, max)``: ids of the caller's episodes matching a tsquery, through the GIN index.

Under row-level security PostgreSQL may not use an index for a condition whose operator is
not leakproof, and the full-text match (``@@``) is not: as the request role the keyword
channel's candidate query read every episode of the table (a sequential scan, ~100 ms at
100,000 episodes). This function runs as its owner (the maintenance role, whose policy
admits every row), so the GIN index serves the match, and it filters to the tenant that
``memoryhub_tenant()`` verifies itself: a caller without a valid tenant token gets nothing.
It returns ids only; the caller reads the rows back through its own row-level security.
"""

from django.db import migrations

CREATE = """
CREATE FUNCTION public.memoryhub_keyword_matches(p_bank bigint, p_query tsquery, p_limit integer)
RETURNS SETOF bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT e.id FROM public.beliefs_episode AS e
    WHERE e.tenant_id = (SELECT public.memoryhub_tenant())
      AND e.bank_id = p_bank
      AND e.search_vector @@ p_query
    LIMIT p_limit
$fn$;
"""


class Migration(migrations.Migration):
    dependencies = [
        ("beliefs", "0017_recall_usage"),
    ]

    operations = [
        migrations.RunSQL(
            CREATE, reverse_sql="DROP FUNCTION public.memoryhub_keyword_matches(bigint, tsquery, integer);"
        ),
    ]
