"""``memoryhub_keyword_candidates(bank, query, max)``: the caller's matching episodes with their search vectors.

The keyword channel's unfiltered candidate read. ``memoryhub_keyword_matches`` (0018) hands
back ids, and the caller read every row again through its own row-level security to get
the search vector BM25 scores: each candidate's heap page was visited twice (about 5 ms
per 1,000 candidates at 100,000 episodes). This function returns the vector with the id
from the one visit, under the same tenant check. Both functions plan each call for its
own query (``plan_cache_mode``): the generic plan PostgreSQL would settle on intersects
the match with every episode of the bank (7 ms at 100,000 episodes, whatever the match).
"""

from django.db import migrations

CREATE = """
CREATE FUNCTION public.memoryhub_keyword_candidates(p_bank bigint, p_query tsquery, p_limit integer)
RETURNS TABLE (id bigint, search_vector tsvector)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_custom_plan
AS $fn$
    SELECT e.id, e.search_vector FROM public.beliefs_episode AS e
    WHERE e.tenant_id = (SELECT public.memoryhub_tenant())
      AND e.bank_id = p_bank
      AND e.search_vector @@ p_query
    LIMIT p_limit
$fn$;
ALTER FUNCTION public.memoryhub_keyword_matches(bigint, tsquery, integer) SET plan_cache_mode = force_custom_plan;
"""

REVERSE = """
DROP FUNCTION public.memoryhub_keyword_candidates(bigint, tsquery, integer);
ALTER FUNCTION public.memoryhub_keyword_matches(bigint, tsquery, integer) RESET plan_cache_mode;
"""


class Migration(migrations.Migration):
    dependencies = [
        ("beliefs", "0019_vectors_stored_inline"),
    ]

    operations = [migrations.RunSQL(CREATE, reverse_sql=REVERSE)]
