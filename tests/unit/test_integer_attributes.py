"""Integer-typed numbers: the text DynamoDB stores, and back."""
import pytest

from chalicelib.models.attributes import IntegerAttribute, IntegerSetAttribute


@pytest.mark.parametrize(("value", "text"), [(0, "0"), (42, "42"), (-7, "-7"),
                                             (2**70, str(2**70))])
def test_an_integer_is_stored_as_its_decimal_text_and_read_back(value, text):
    attribute = IntegerAttribute()
    assert attribute.serialize(value) == text
    assert attribute.deserialize(text) == value


@pytest.mark.parametrize(("text", "value"), [("3.0", 3), ("1E2", 100), ("-0", 0)])
def test_a_number_written_elsewhere_in_another_form_still_reads_as_an_integer(text, value):
    read = IntegerAttribute().deserialize(text)
    assert read == value
    assert type(read) is int


def test_a_set_of_integers_is_stored_as_their_texts():
    assert sorted(IntegerSetAttribute().serialize({3, -1})) == ["-1", "3"]
    assert IntegerSetAttribute().serialize(set()) is None
