"""The official terminal client (zulip-term) searches a running stack, as a user would:
it starts in a pseudo-terminal behind the renaming proxy, `/` opens its search box, the
words are typed, and the screen it draws must show the message searched for.

Run: make try-terminal   (installs zulip-term into build/term-venv, then runs this there;
the stack and the proxy run on the project's own .venv)
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import requests

REPO_ROOT = Path(__file__).resolve().parents[2]
PROJECT_PYTHON = str(REPO_ROOT / ".venv" / "bin" / "python")
sys.path.insert(0, str(REPO_ROOT))

from infra.local import launcher  # (the repository root is on the path now)
from tests.clients.terminal import Terminal, renaming_proxy, write_zuliprc

SOUGHT = "The deployment of the kangaroo service failed twice"
QUERY = "deploying kangaroos"   # other inflections of two of its words


def post(stack: launcher.LocalStack, account: dict, **data: str) -> int:
    answer = requests.post(f"{stack.url}/api/v1/messages", timeout=10, data=data,
                           auth=(account["email"], account["api_key"]))
    answer.raise_for_status()
    return int(answer.json()["id"])


def main() -> int:
    client = Path(sys.executable).with_name("zulip-term")
    launcher.sys.executable = PROJECT_PYTHON   # the stack runs on the project's venv
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state"
        state.mkdir()
        stack = launcher.start_stack(state)
        try:
            accounts = stack.accounts()
            owner, member = accounts["owner"], accounts["member"]
            # The message sought, with 60 others around it (older and newer).
            for n in range(30):
                post(stack, owner, type="stream", to="general", topic=f"before {n}",
                     content=f"nothing to see {n}")
            post(stack, owner, type="stream", to="general", topic="deploys", content=SOUGHT)
            for n in range(30):
                post(stack, owner, type="stream", to="general", topic=f"after {n}",
                     content=f"more filler {n}")
            with renaming_proxy(stack.url, PROJECT_PYTHON) as site:
                terminal = Terminal(write_zuliprc(Path(tmp), member, site), client)
                if not terminal.wait_for("Search [/]", 60):
                    print(terminal.text())
                    print("FAILED: the terminal client did not start")
                    return 1
                terminal.child.send("/")
                terminal.wait_for("", 1)
                terminal.child.send(QUERY + "\r")
                found = terminal.wait_for(SOUGHT, 30)
                screen = terminal.text()
                terminal.close()
        finally:
            stack.stop()
    print(screen)
    verdict = "found" if found and "Search Results" in screen else "did NOT find"
    print(f"\nzulip-term, searching {QUERY!r}: {verdict} {SOUGHT!r}")
    return 0 if verdict == "found" else 1


if __name__ == "__main__":
    sys.exit(main())
