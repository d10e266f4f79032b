"""The typed-parameter parser: wire text to declared types, with messages naming the parameter."""
from __future__ import annotations

from typing import Annotated, Any, Literal

import pytest

from chalicelib.core.errors import ApiError
from chalicelib.http.params import ApiParam, Json, param_specs, parse_params


def view(caller: object, *, name: str, count: int = 3, flag: bool = False,
         ids: Json[list[int]] = [],  # noqa: B006 (read by the parser, never mutated)
         kind: Annotated[Literal["a", "b"], ApiParam(alias="type")] = "a",
         maybe: int | None = None, data: Json[dict[str, Any]] | None = None,
         stream_id: int = 0) -> None:
    """A view signature exercising every supported parameter type."""


SPECS = param_specs(view, {"stream_id"})


def parse(**supplied: str) -> dict[str, Any]:
    values, _ = parse_params(SPECS, supplied, {"stream_id": "7"})
    return values


def test_defaults_and_path_params():
    values = parse(name="x")
    assert values == {"name": "x", "count": 3, "flag": False, "ids": [], "kind": "a",
                      "maybe": None, "data": None, "stream_id": 7}


def test_typed_values():
    values = parse(name="x", count="12", flag="true", ids="[1, 2]", type="b", maybe="null",
                   data='{"k": [1]}')
    assert values["count"] == 12 and values["flag"] is True and values["ids"] == [1, 2]
    assert values["kind"] == "b" and values["maybe"] is None and values["data"] == {"k": [1]}


@pytest.mark.parametrize("supplied, code, message", [
    ({}, "REQUEST_VARIABLE_MISSING", "The 'name' parameter is required"),
    ({"name": "x", "count": "ten"}, "BAD_REQUEST", "count must be an integer"),
    ({"name": "x", "flag": "yes"}, "BAD_REQUEST", "Argument 'flag' cannot be parsed as JSON."),
    ({"name": "x", "flag": "1"}, "BAD_REQUEST", "flag must be true or false"),
    ({"name": "x", "ids": "[1, \"a\"]"}, "BAD_REQUEST", "ids[1] must be an integer"),
    ({"name": "x", "ids": "{}"}, "BAD_REQUEST", "ids must be a list"),
    ({"name": "x", "type": "c"}, "BAD_REQUEST", "type has an unacceptable value"),
    ({"name": "x", "count": "1_000"}, "BAD_REQUEST", "count must be an integer"),
    ({"name": "x", "count": "\u0663"}, "BAD_REQUEST", "count must be an integer"),
    ({"name": "x", "count": "9" * 40}, "BAD_REQUEST", "count is out of range"),
    ({"name": "x", "ids": f"[{10**20}]"}, "BAD_REQUEST", "ids[0] is out of range"),
])
def test_bad_values_name_the_parameter(supplied, code, message):
    with pytest.raises(ApiError) as raised:
        parse(**supplied)
    assert raised.value.code == code
    assert raised.value.msg == message


def test_unknown_parameters_are_reported():
    _, ignored = parse_params(SPECS, {"name": "x", "zeta": "1", "alpha": "2"}, {"stream_id": "1"})
    assert ignored == ["alpha", "zeta"]


def test_json_body_values_are_checked_too():
    values, _ = parse_params(SPECS, {"name": "x", "ids": [3], "flag": True}, {"stream_id": "1"})
    assert values["ids"] == [3] and values["flag"] is True
    with pytest.raises(ApiError):
        parse_params(SPECS, {"name": "x", "flag": "true-ish"}, {"stream_id": "1"})


def limited(caller: object, *,
            ids: Annotated[Json[list[int]], ApiParam(max_length=3)] = [],  # noqa: B006
            name: Annotated[str, ApiParam(max_length=5)] = "",
            other: Json[list[int]] | None = None, text: str = "") -> None:
    """Declared limits, and the defaults of parameters that declare none."""


def test_length_limits_are_declared_for_the_generator_and_checked_first():
    from chalicelib.http.params import MAX_LIST_LENGTH, MAX_STRING_LENGTH

    specs = {s.name: s for s in param_specs(limited, set())}
    assert (specs["ids"].max_length, specs["ids"].length_limit) == (3, 3)
    assert (specs["name"].max_length, specs["name"].length_limit) == (5, 5)
    assert (specs["other"].max_length, specs["other"].length_limit) == (None, MAX_LIST_LENGTH)
    assert specs["text"].length_limit == MAX_STRING_LENGTH
    for supplied, message in (({"ids": '["a", 2, 3, 4]'}, "ids has too many items"),
                              ({"name": "abcdef"}, "name is over the limit"),
                              ({"other": '[1, ' + '[' * 20 + ']' * 20 + ']'}, "too deeply"),
                              ({"text": '\ud800'}, "cannot be stored")):
        with pytest.raises(ApiError) as raised:
            parse_params(list(specs.values()), supplied, {})
        assert message in raised.value.msg


def either(caller: object, *, principals: Json[list[int] | list[str]] | None = None,
           to: Json[list[int]] | str = "") -> None:
    """A union of list types, and a parameter that takes a list or a string."""


def test_a_union_of_lists_has_the_list_limit_and_a_list_value_the_list_default():
    from chalicelib.http.params import MAX_LIST_LENGTH

    specs = {s.name: s for s in param_specs(either, set())}
    assert specs["principals"].length_limit == MAX_LIST_LENGTH
    for name, too_long in (("principals", list(range(MAX_LIST_LENGTH + 1))),
                           ("to", list(range(MAX_LIST_LENGTH + 1)))):
        with pytest.raises(ApiError) as raised:
            parse_params(list(specs.values()), {name: too_long}, {})
        assert f"{name} has too many items (limit: {MAX_LIST_LENGTH})" in raised.value.msg
