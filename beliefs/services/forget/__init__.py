"""Forget: remove memory from a bank, and everything derived from it.

Three reaches, one module each: one or more episodes (``episodes``), every episode and
mention of a subject (an erasure request, in one bank or across the tenant, leaving a
hashed tombstone and a receipt: ``subjects``, ``mentions``, ``tombstones``); a whole bank
goes with ``banks.services.banks.bank_delete``. What was derived from removed or rewritten
text is rebuilt by ``beliefs.services.rederive``.
"""
