"""Coding-agent hooks: recall into Claude Code, Codex and Cursor, retain what happened in them.

- ``install``: writes each tool's documented hook configuration (merged, diffed, never
  silently overwritten).
- ``payloads``: reads each tool's hook payload (stdin JSON) into one shape.
- ``recall``: the fast path: one recall request, the fenced rendering in the form the tool
  injects as context.
- ``spool``: items to retain go to a local file first; a background flush sends them with
  idempotency keys, so nothing is lost when the service is down and nothing is stored twice.
"""
