"""``mhctl --help`` tells the truth: every option of every command is listed, with what it does."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from mhctl.main import cli

# `mhctl mcp` hands its arguments to the MCP server, which documents them itself.
NOT_CLICK_PARSED = {("mcp",)}


def commands(group: click.Group = cli, path: tuple[str, ...] = ()):
    yield path, group
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from commands(command, (*path, name))
        else:
            yield (*path, name), command


ALL = [
    pytest.param(path, command, id=" ".join(path) or "mhctl")
    for path, command in commands()
    if path not in NOT_CLICK_PARSED
]


@pytest.mark.parametrize(("path", "command"), ALL)
def test_every_option_is_listed_in_help_with_a_description(path, command):
    result = CliRunner().invoke(cli, [*path, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert (command.help or "").strip(), f"mhctl {' '.join(path)} has no description"
    for param in command.params:
        if not isinstance(param, click.Option) or param.hidden:
            continue
        for flag in param.opts + param.secondary_opts:
            assert flag in result.output, f"mhctl {' '.join(path)} --help does not list {flag}"
        assert (param.help or "").strip(), f"mhctl {' '.join(path)} {param.opts[0]} has no help text"


def test_the_walk_covers_the_hook_and_probe_commands():
    names = {" ".join(path) for path, _ in commands()}
    assert {"hooks install", "hooks uninstall", "hook session-start", "hook user-prompt", "hook post-tool",
            "hook stop", "hook flush", "retain", "recall"} <= names  # fmt: skip
