"""A user group's update event carries the properties a group has, each optional."""
from __future__ import annotations

import typing

from chalicelib.actions.groups.reads.user_groups import (
    UserGroupChanges,
    UserGroupDict,
    UserGroupProperties,
)


def test_the_changes_are_the_properties_each_optional():
    # GIVEN the partial twin of UserGroupProperties (TypedDict has no partial)
    # THEN it has the same keys with the same types, and none is required
    assert typing.get_type_hints(UserGroupChanges) == typing.get_type_hints(UserGroupProperties)
    assert UserGroupChanges.__required_keys__ == frozenset()


def test_a_group_as_clients_see_it_has_every_property():
    assert UserGroupProperties.__required_keys__ <= UserGroupDict.__required_keys__
