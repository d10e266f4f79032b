"""Item answers read as JSON give what botocore's model walk gives (aws/item_answers.py)."""
import base64
import json

import botocore.session
import pytest
from botocore.parsers import create_parser

from chalicelib.aws.item_answers import ITEM_OPERATIONS, ItemAnswerParsers
from chalicelib.models.sessions import thread_session

MODEL = botocore.session.get_session().get_service_model("dynamodb")
ITEM = {"pk": {"S": "1#2"}, "n": {"N": "-12.5"}, "ok": {"BOOL": True}, "none": {"NULL": True},
        "names": {"SS": ["a", "b"]}, "ids": {"NS": ["1", "2"]},
        "deep": {"M": {"list": {"L": [{"S": "x"}, {"M": {"y": {"N": "3"}}}]}}},
        "quoted": {"S": 'a value with "B": inside'}}
BINARY = {"bin": {"B": base64.b64encode(b"\x00\x01").decode()},
          "bins": {"BS": [base64.b64encode(b"\x02").decode()]}}
ANSWERS = {
    "GetItem": {"Item": ITEM},
    "Query": {"Items": [ITEM, ITEM], "Count": 2, "ScannedCount": 2,
              "LastEvaluatedKey": {"pk": {"S": "1#2"}},
              "ConsumedCapacity": {"TableName": "t", "CapacityUnits": 1.5}},
    "BatchGetItem": {"Responses": {"t": [ITEM]}, "UnprocessedKeys": {}},
    "BatchWriteItem": {"UnprocessedItems": {"t": [{"PutRequest": {"Item": ITEM}}]}},
    "UpdateItem": {"Attributes": ITEM},
    "TransactWriteItems": {},
    "BatchExecuteStatement": {"Responses": [{"TableName": "t", "Item": ITEM},
                                            {"Error": {"Code": "ConditionalCheckFailed",
                                                       "Message": "no"}}]},
}


def parse(parser, operation, body):
    response = {"body": json.dumps(body).encode(), "status_code": 200,
                "headers": {"x-amzn-requestid": "r"}}
    return parser.parse(response, MODEL.operation_model(operation).output_shape)


@pytest.mark.parametrize("operation", sorted(ANSWERS))
@pytest.mark.parametrize("extra", [{}, BINARY], ids=["text values", "binary values"])
def test_an_item_answer_reads_the_same_either_way(operation, extra):
    body = json.loads(json.dumps(ANSWERS[operation]).replace(
        '"pk": {"S": "1#2"}', '"pk": {"S": "1#2"}' + (
            ", " + json.dumps(extra)[1:-1] if extra else "")))
    quick = ItemAnswerParsers().create_parser("json")
    assert parse(quick, operation, body) == parse(create_parser("json"), operation, body)


def test_a_null_member_is_left_out_as_the_model_walk_leaves_it_out():
    quick = ItemAnswerParsers().create_parser("json")
    body = {"Items": [], "Count": 0, "LastEvaluatedKey": None}
    assert "LastEvaluatedKey" not in parse(quick, "Query", body)


def test_every_listed_operation_is_one_of_dynamodbs_with_that_output_shape():
    for operation in ITEM_OPERATIONS:
        assert MODEL.operation_model(operation).output_shape.name == f"{operation}Output"


def test_the_sessions_pynamodb_uses_read_item_answers_this_way():
    assert isinstance(thread_session().get_component("response_parser_factory"),
                      ItemAnswerParsers)


def test_only_answers_with_binary_values_walk_the_model(monkeypatch):
    quick = ItemAnswerParsers().create_parser("json")
    walked = []
    original = quick._parse_shape
    monkeypatch.setattr(quick, "_parse_shape",
                        lambda shape, value: walked.append(shape.name) or original(shape, value))
    parse(quick, "GetItem", {"Item": ITEM})
    assert walked == []
    parse(quick, "GetItem", {"Item": {**ITEM, **BINARY}})
    assert walked
