"""Generated requests for every route, from the parameters each view declares.

For each parameter's declared type (`chalicelib/http/params.py`'s `param_specs`), values
come from a pool of plausible and hostile inputs: ids that exist and ids no key can
hold, empty and huge strings, unstorable strings (as JSON bodies), JSON of the wrong
shape, nested past the limits, or not JSON at all. The property: no answer is a 5xx.
"""
from __future__ import annotations

import json
import random
import re
import types
import typing
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin
from urllib.parse import quote

from chalicelib.http.params import ParamSpec, param_specs

_PATH_PARAM = re.compile(r"{(\w+)}")
HOSTILE_TEXT = ["", " ", "x", "null", "true", "[]", "{}", "\x00", "✔ ", "general",
                "(no topic)", "a" * 61, "b" * 1025, "c" * 100_001, "<script>x</script>",
                "..", "%00", "ü" * 300, "-1", "9" * 40]
HOSTILE_INTS = [0, 1, 2, 3, 5, 8, -1, 2**31, 2**53, 10**30, "abc", "", "1.5", "1e3",
                "٣", "9" * 5000, " 7", "0x10"]
DEEP = "[" * 200 + "]" * 200


@dataclass
class Route:
    path: str
    method: str
    specs: list[ParamSpec]


def routes(app: Any) -> list[Route]:
    found = []
    for path, methods in app.routes.items():
        for method, entry in methods.items():
            view = getattr(entry.view_function, "__wrapped__", None)
            if view is None:
                continue
            names = set(_PATH_PARAM.findall(path))
            found.append(Route(path, method, param_specs(view, names)))
    return sorted(found, key=lambda r: (r.path, r.method))


def _options(tp: Any) -> list[Any]:
    return [a for a in get_args(tp) if a is not type(None)]


def json_value(rng: random.Random, tp: Any, depth: int = 0) -> Any:
    """A decoded JSON value, usually of the declared type, sometimes not."""
    if rng.random() < 0.15 or depth > 3:
        return rng.choice([None, True, 7, -3, 10**30, "x", "", [], {}, [1, "a"],
                           {"operator": {"a": 1}, "operand": []}, "\ud800"])
    origin = get_origin(tp)
    if tp is Any:
        return rng.choice([1, "s", [1, 2], {"k": "v"}, {"operator": "channel",
                                                          "operand": "general"}])
    if origin in (Union, types.UnionType):
        return json_value(rng, rng.choice(_options(tp) or [Any]), depth + 1)
    if tp is bool:
        return rng.choice([True, False])
    if tp is int:
        return rng.choice([v for v in HOSTILE_INTS if isinstance(v, int)])
    if tp is str:
        return rng.choice([*HOSTILE_TEXT[:15], "�x"])
    if origin is Literal:
        return rng.choice([*get_args(tp), "nope"])
    if origin is list or tp is list:
        (item,) = get_args(tp) or (Any,)
        size = rng.choice([0, 1, 2, 3, 1001])
        return [json_value(rng, item, depth + 1) for _ in range(min(size, 3))] * (
            1 if size < 1000 else 400)
    if origin is dict or tp is dict:
        _, value = get_args(tp) or (str, Any)
        return {rng.choice(["a", "name", "\ud800", "direct_members"]):
                json_value(rng, value, depth + 1) for _ in range(rng.randint(0, 3))}
    if typing.is_typeddict(tp):
        hints = typing.get_type_hints(tp)
        return {k: json_value(rng, v, depth + 1) for k, v in hints.items()
                if rng.random() < 0.8}
    return None


def wire_value(rng: random.Random, spec: ParamSpec) -> Any:
    """A form value (text) for the parameter, or a JSON value for a JSON body."""
    tp = spec.annotation
    if spec.json:
        choice = rng.random()
        if choice < 0.1:
            return rng.choice(["not json", DEEP, "{" * 30, "[1e400]", "null", '"\\ud800"'])
        return json.dumps(json_value(rng, tp))
    base = tp
    if get_origin(tp) in (Union, types.UnionType):
        base = rng.choice(_options(tp) or [str])
    if base is int:
        return str(rng.choice(HOSTILE_INTS))
    if get_origin(base) is Literal:
        return rng.choice([*map(str, get_args(base)), "nope", ""])
    return rng.choice(HOSTILE_TEXT)


@dataclass
class Request:
    method: str
    path: str
    params: dict[str, Any]
    as_json: bool


def generate(rng: random.Random, route: Route) -> Request:
    path = route.path
    params: dict[str, Any] = {}
    for spec in route.specs:
        if spec.in_path:
            value = rng.choice([str(v) for v in HOSTILE_INTS[:8]] + ["x", "%E2%9C%94",
                                                                    "a" * 2000])
            path = path.replace("{" + spec.name + "}", quote(value, safe="%"))
            continue
        if not spec.required and rng.random() < 0.5:
            continue
        if spec.required and rng.random() < 0.05:
            continue
        params[spec.wire_name] = wire_value(rng, spec)
    if rng.random() < 0.1:
        params["unknown_param"] = "x"
    # A JSON body carries what a form cannot (unpaired surrogates); GETs use the query.
    as_json = route.method != "GET" and rng.random() < 0.3
    return Request(route.method, path, params, as_json)
