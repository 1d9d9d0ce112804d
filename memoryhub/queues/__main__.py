"""``python -m memoryhub.queues workers``: the worker command lines of a deployment."""

import sys

from memoryhub.queues.routing import WORKERS


def main(argv: list[str]) -> int:
    if argv[1:] != ["workers"]:
        print("usage: python -m memoryhub.queues workers")
        return 2
    for spec in WORKERS:
        print(" ".join(spec.command()))
    return 0


raise SystemExit(main(sys.argv))
