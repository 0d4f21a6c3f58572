"""The slot setters of the model's records are found without inspect.getattr_static
(compiler.load.records._own_attribute): the same descriptors it finds, for every field."""

from __future__ import annotations

import inspect

from compiler.load.records import _field_names, _model_classes, _own_attribute, _setters


def test_each_field_is_what_getattr_static_finds() -> None:
    pairs = [(cls, name) for cls in _model_classes() for name in _field_names(cls)]
    assert len(pairs) > 500
    assert [
        (cls, name)
        for cls, name in pairs
        if _own_attribute(cls, name) is not inspect.getattr_static(cls, name, None)
    ] == []


def test_a_name_no_class_defines_is_none() -> None:
    cls = _model_classes()[0]
    assert _own_attribute(cls, "no_such_field_anywhere") is None
    assert _setters()  # the model's records have slots: each has its setters
