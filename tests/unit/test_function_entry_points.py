"""Each Lambda function's Handler, as the packaged template names it, loads only its own
code: the workers and the push channel never import the API's views."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from chalicelib.handlers import websocket

PACKAGED = Path("build/package/sam.json")
# The functions that must not carry the API: a module each would pull in if they did.
LIGHT = {"LongPollHandler", "Fanout", "WebsocketConnect", "WebsocketMessage",
         "WebsocketDisconnect", "EventsKeepalive", "Notifier", "MailEvents",
         "OutgoingWebhooks", "ScheduledMessages"}
API_ONLY_MODULES = ("app", "chalicelib.api.messages", "chalicelib.registration.register",
                    "snowballstemmer",
                    # nothing here is async; wrapt 2 (the X-Ray SDK's) imported it
                    "asyncio")
# What the queue and stream functions leave out of their cold start: Chalice (they are
# plain handlers), powertools' batch processor with every event data class (a loop does
# its job, aws/partial_batch.py), and for the webhook worker the rarely used export code;
# the fan-out forwards webhook jobs without the bot code that decides them, and loads the
# narrow language (and search's queries) only for a narrowed queue, and what only some
# records need when one comes: edits' and moves' recipient changes, read-state records'
# markers, alert words (RE2), events about a user (the access rule), channel changes'
# viewers, webhook jobs, and nothing of the notifier's decisions.
NOT_IN_WORKERS = ("chalice.app", "aws_lambda_powertools.utilities.batch",
                  "aws_lambda_powertools.utilities.data_classes")
WORKERS = {"Fanout": (*NOT_IN_WORKERS, "chalicelib.actions.messages.webhook_triggers",
                      "chalicelib.narrow.parser", "chalicelib.narrow.evaluate",
                      "chalicelib.search.query", "re2", "chalicelib.fanout.recipient_edits",
                      "chalicelib.actions.read_state.markers",
                      "chalicelib.actions.users.reads.access",
                      "chalicelib.actions.channels.reads.permissions",
                      "chalicelib.delivery.webhook_jobs", "chalicelib.notifications.decide"),
           "Notifier": NOT_IN_WORKERS,
           "OutgoingWebhooks": (*NOT_IN_WORKERS, "chalicelib.actions.workflows.export")}


def _functions() -> dict[str, dict]:
    resources = json.loads(PACKAGED.read_text())["Resources"]
    return {name: r["Properties"] for name, r in resources.items()
            if r["Type"] == "AWS::Serverless::Function"}


def test_every_function_names_a_handler_that_loads_alone_and_light_ones_skip_the_api():
    functions = _functions()
    assert set(functions) > LIGHT
    # The collector is paused during the imports (aws/cold_start.py), on again after,
    # with what they built frozen.
    probe = ("import gc, importlib, json, sys\n"
             "module, _, name = sys.argv[1].rpartition('.')\n"
             "assert callable(getattr(importlib.import_module(module), name))\n"
             "assert gc.isenabled() and gc.get_freeze_count() > 50_000, gc.get_freeze_count()\n"
             "print(json.dumps([m for m in json.loads(sys.argv[2]) if m in sys.modules]))\n")
    for name, props in sorted(functions.items()):
        out = subprocess.run([sys.executable, "-c", probe, props["Handler"],
                              json.dumps([*API_ONLY_MODULES, *WORKERS.get(name, ())])],
                             check=True, capture_output=True, text=True).stdout
        loaded = json.loads(out)
        if name in LIGHT:
            assert loaded == [], (name, props["Handler"], loaded)
        else:
            assert props["Handler"] == "app.app"


@pytest.mark.parametrize("entry", [websocket.message, websocket.disconnect])
def test_websocket_routes_answer_what_api_gateway_expects(entry, monkeypatch):
    monkeypatch.setattr(websocket.websocket, entry.__name__.replace("message", "on_message")
                        .replace("disconnect", "on_disconnect"), lambda raw: None)
    assert entry({"requestContext": {}}, None) == {"statusCode": 200}
