"""The reference's published API examples against `make run`'s stack, through the
official client: the table and what does not run (and why) are in
tests/e2e/reference_examples/__init__.py."""
from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import requests

from tests.contract import ContractChecker, path_pattern
from tests.e2e.example_client import check_answer, take_answers
from tests.e2e.reference_dev_data import DevData, make_dev_data
from tests.e2e.reference_examples import (
    EXAMPLES,
    NEWER_THAN_THE_DOCUMENT,
    NOT_RUN,
    SERVED_IN_A_LATER_FORM,
    Example,
)
from tests.reference_contract import reference_operation


@pytest.fixture(scope="module")
def dev_data(local_stack, tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevData]:
    yield make_dev_data(local_stack.accounts(), local_stack.url,
                        tmp_path_factory.mktemp("examples"))


@pytest.fixture(scope="module")
def checker(local_stack) -> ContractChecker:
    document = requests.get(f"{local_stack.url}/api/v1/openapi.json", timeout=10).json()
    return ContractChecker(document)


def _is(operation: str, method: str, path: str) -> bool:
    verb, template = operation.split(" ", 1)
    pattern = "^" + path_pattern("/api/v1" + template) + "$"
    return verb == method and re.match(pattern, path.split("?", 1)[0]) is not None


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.name for e in EXAMPLES])
def test_reference_example(example: Example, dev_data: DevData, checker: ContractChecker):
    take_answers()
    result = example.call(dev_data)
    answers = take_answers()
    # The example's own operation was called, and every answer has the reference's shape.
    assert any(_is(example.operation, a.method, a.path) for a in answers), answers
    for answer in answers:
        check_answer(answer, checker)
    if example.error is None:
        assert result["result"] == "success", result
    else:
        assert (result["result"], result.get("code")) == ("error", example.error), result
    if example.check is not None:
        example.check(dev_data, result)


@pytest.mark.parametrize("operation", sorted(set(NOT_RUN) - SERVED_IN_A_LATER_FORM))
def test_examples_not_run_are_not_served(operation: str, dev_data: DevData):
    # As from a server without the feature: no such route (404) or method (405).
    method, path = operation.split(" ", 1)
    concrete = re.sub(r"{\w+}", "1", path)
    response = dev_data.client.session.request(method, f"{dev_data.site}/api/v1{concrete}",
                                               timeout=10)
    assert response.status_code in (404, 405), (operation, response.text)


def test_every_example_names_a_reference_operation():
    for example in EXAMPLES:
        method, path = example.operation.split(" ", 1)
        concrete = "/api/v1" + re.sub(r"{\w+}", "1", path.replace("{email}", "i@example.com"))
        if example.operation in NEWER_THAN_THE_DOCUMENT:
            # Checked against the generated document only, as the functional tests do.
            assert reference_operation(method, concrete) is None, example.name
        else:
            assert reference_operation(method, concrete) == example.operation, example.name
