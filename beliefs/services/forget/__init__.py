"""Forget: remove memory from a bank, and everything derived from it.

Three reaches, one module each: one or more episodes (``episodes``), every episode and
mention of a subject (an erasure request, in one bank or across the tenant, leaving a
hashed tombstone and a receipt: ``subjects``, ``mentions``, ``tombstones``) and a whole
bank (``bank``). What was derived from removed or rewritten text is rebuilt by
``beliefs.services.rederive``.
"""
