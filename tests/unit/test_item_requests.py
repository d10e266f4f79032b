"""Item requests written as JSON are the bytes botocore's model walk writes
(aws/item_requests.py)."""
import botocore.session
import pytest
from botocore.serialize import create_serializer

from chalicelib.aws.item_requests import ItemRequestSerializer
from chalicelib.models.sessions import thread_session

MODEL = botocore.session.get_session().get_service_model("dynamodb")
ITEM = {"pk": {"S": "1#2"}, "n": {"N": "-12.5"}, "ok": {"BOOL": True}, "none": {"NULL": True},
        "names": {"SS": ["a", "b"]}, "ids": {"NS": ["1", "2"]},
        "deep": {"M": {"list": {"L": [{"S": "x"}, {"M": {"y": {"N": "3"}}}]}}},
        "quoted": {"S": 'a value with "B": inside'}, "unicode": {"S": "ünï ✓ 字"}}
BINARY = {"bin": {"B": b"\x00\x01"}, "bins": {"BS": [b"\x02"]}}


def requests(item):
    """A request of each operation, `item` wherever one goes."""
    return {
        "GetItem": {"TableName": "t", "Key": {"pk": {"S": "1#2"}}, "ConsistentRead": True},
        "PutItem": {"TableName": "t", "Item": item, "ConditionExpression": "attribute_not_exists(pk)"},
        "Query": {"TableName": "t", "KeyConditionExpression": "pk = :p", "Limit": 5,
                  "ExpressionAttributeValues": {":p": {"S": "1#2"}}, "ScanIndexForward": False},
        "BatchGetItem": {"RequestItems": {"t": {"Keys": [{"pk": {"S": "1"}}, {"pk": {"S": "2"}}],
                                                "ConsistentRead": True}}},
        "BatchWriteItem": {"RequestItems": {"t": [{"PutRequest": {"Item": item}},
                                                  {"DeleteRequest": {"Key": {"pk": {"S": "3"}}}}]}},
        "UpdateItem": {"TableName": "t", "Key": {"pk": {"S": "1"}}, "UpdateExpression": "SET a = :a",
                       "ExpressionAttributeValues": {":a": {"M": item}}, "ReturnValues": "ALL_NEW"},
        "TransactWriteItems": {"TransactItems": [{"Put": {"TableName": "t", "Item": item}}],
                               "ClientRequestToken": "token"},
        "BatchExecuteStatement": {"Statements": [{"Statement": 'INSERT INTO "t" VALUE {\'a\': ?}',
                                                  "Parameters": [{"M": item}]}]},
    }


REQUESTS = requests(ITEM)


def serialize(serializer, operation, parameters):
    return serializer.serialize_to_request(parameters, MODEL.operation_model(operation))


@pytest.mark.parametrize("operation", sorted(REQUESTS))
@pytest.mark.parametrize("extra", [{}, BINARY], ids=["text values", "binary values"])
def test_an_item_request_is_the_same_request_either_way(operation, extra):
    # with binary values beside the text ones, botocore's own path
    parameters = requests({**ITEM, **extra})[operation]
    botocore_way = create_serializer("json", include_validation=True)
    quick = ItemRequestSerializer(create_serializer("json", include_validation=True))
    assert serialize(quick, operation, parameters) == serialize(botocore_way, operation,
                                                                parameters)


def test_the_shortcut_is_taken_for_text_values_and_not_for_binary_ones(monkeypatch):
    calls = []

    class Recording:
        def serialize_to_request(self, parameters, operation_model):
            calls.append(operation_model.name)
            return create_serializer("json").serialize_to_request(parameters, operation_model)

    quick = ItemRequestSerializer(Recording())
    serialize(quick, "PutItem", REQUESTS["PutItem"])
    assert calls == []
    serialize(quick, "PutItem", {"TableName": "t", "Item": {**ITEM, **BINARY}})
    serialize(quick, "DescribeTable", {"TableName": "t"})
    assert calls == ["PutItem", "DescribeTable"]


def test_a_session_s_dynamodb_clients_take_the_shortcut():
    client = thread_session().create_client("dynamodb", region_name="us-east-1",
                                            aws_access_key_id="k", aws_secret_access_key="s")
    assert isinstance(client._serializer, ItemRequestSerializer)


def test_the_shared_dynamodb_client_takes_the_shortcut():
    from chalicelib.aws import aws_clients

    assert isinstance(aws_clients.dynamodb()._serializer, ItemRequestSerializer)
