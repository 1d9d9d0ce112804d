"""``mhctl probe``: a read-mostly check of a live deployment's protections, with two keys the user owns.

Key A and key B belong to two tenants, or are scoped to two banks of one tenant: neither
may see the other's memory. The probe works in scratch banks it creates (or, given
``--bank-a``/``--bank-b``, on items it tags), removes everything it wrote at the end, prints
a pass/fail table and can write the results as JSON. The bank routes it checks come from
the OpenAPI schema the server publishes, so a route added later is checked too.
"""
