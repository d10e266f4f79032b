"""Organization exports on the local stack (issue 39): the link of a finished export gives
the file to whoever follows it, on the stack's own address (the local object store's
port changes at every start), and keeps working after a restart (an upload's link too)."""
from __future__ import annotations

import time
from urllib.parse import urlsplit

import requests

from infra.local.environment import free_port
from tests.e2e.conftest import LocalStack, start_stack
from tests.e2e.test_local_storage import assert_served_as_download, upload_link


def finished_export_url(stack: LocalStack) -> str:
    """Asks the demo owner's export and waits for the worker to write it."""
    owner = stack.accounts()["owner"]
    auth = (owner["email"], owner["api_key"])
    started = requests.post(f"{stack.url}/api/v1/export/realm", auth=auth, timeout=10,
                            data={"export_type": 1})
    assert started.ok, started.text
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        exports = requests.get(f"{stack.url}/api/v1/export/realm", auth=auth,
                               timeout=10).json()["exports"]
        [mine] = [e for e in exports if e["id"] == started.json()["id"]]
        if mine["export_url"]:
            return str(mine["export_url"])
        assert mine["failed_timestamp"] is None, mine
        time.sleep(0.2)
    raise AssertionError("the export did not finish in 30 s")


def assert_gives_the_archive(url: str) -> None:
    # As a browser follows it: no credentials, the link alone
    answer = requests.get(url, timeout=10)
    assert answer.status_code == 200, answer.text[:300]
    assert answer.headers["Content-Disposition"].startswith("attachment;")
    archive = answer.json()
    assert (archive["format"], archive["realm"]["subdomain"]) == (
        "teamchat-realm-export", "demo")
    assert {u["email"] for u in archive["users"]} >= {"owner@demo.example.com"}


def test_an_exports_link_gives_the_file(local_stack):
    url = finished_export_url(local_stack)
    # The link names the stack's own address, not the object store's
    assert urlsplit(url).netloc == urlsplit(local_stack.url).netloc
    assert_gives_the_archive(url)
    # and only the link reads it: the same path unsigned does not
    assert requests.get(url.split("?", 1)[0], timeout=10).status_code == 403


def test_an_exports_link_outlives_a_restart(tmp_path):
    # GIVEN an export made on a stack, as `make run` serves on one port
    state = tmp_path / "state"
    state.mkdir()
    port = free_port()
    first = start_stack(state, port=port)
    url = finished_export_url(first)
    upload = upload_link(first)   # and an upload's (its link lives 60 s)
    first.stop()
    # WHEN the stack starts again (its object store on another port)
    second = start_stack(state, port=port)
    try:
        # THEN the links given out before still give the files (the stack signs with a
        # secret it keeps), and an altered one still does not
        assert_gives_the_archive(url)
        assert_served_as_download(upload)
        assert requests.get(upload[:-4] + "0000", timeout=10).status_code == 403
    finally:
        second.stop()
