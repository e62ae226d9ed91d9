"""Report records as plain values ``marshal`` can write, and back.

A process that judged some sandboxes sends its records to the one that
writes the report (``lint.checks.parallel``). A record becomes a list: its
class number, then its fields; the records themselves hold tuples, dicts and
scalars, never lists, so a list always stands for a record. A record met
twice is written once and comes back as one object: the JSON writer encodes
each examined entry once per object, and thousands of sandboxes share
entries.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from operator import attrgetter
from typing import Any, Final

from lint.report.model import (
    DecisionReport,
    EgressReport,
    ExaminedEntry,
    Finding,
    IngressReport,
    Location,
    NamedReport,
    ObjectRef,
    SandboxRef,
    SandboxReport,
)

RECORDS: Final = (
    DecisionReport,
    EgressReport,
    ExaminedEntry,
    Finding,
    IngressReport,
    Location,
    NamedReport,
    ObjectRef,
    SandboxRef,
    SandboxReport,
)
_NUMBER: Final = {record: number for number, record in enumerate(RECORDS)}
_FIELDS: Final = {record: tuple(f.name for f in fields(record)) for record in RECORDS}
_GETTERS: Final = {record: attrgetter(*names) for record, names in _FIELDS.items()}
_SCALARS: Final = frozenset({str, int, float, bool, type(None)})


class Encoder:
    """Turns records into plain values, each distinct record once."""

    def __init__(self) -> None:
        # Keyed by identity: the caller keeps every record alive meanwhile.
        self._done: dict[int, list[Any]] = {}

    def encode(self, value: Any) -> Any:
        kind = type(value)
        if kind is tuple:
            if value and type(value[0]) in _NUMBER:
                return _each_once(
                    value, self._done, lambda item: type(item) in _NUMBER, self.encode
                )
            return tuple(map(self.encode, value))
        if kind is dict:
            return {key: self.encode(item) for key, item in value.items()}
        number = _NUMBER.get(kind)
        if number is None:
            return value
        done = self._done.get(id(value))
        if done is None:
            done = [number]
            for item in _GETTERS[kind](value):
                done.append(item if type(item) in _SCALARS else self.encode(item))
            self._done[id(value)] = done
        return done


class Decoder:
    """Turns plain values back into records; a list written once comes back
    as one record."""

    def __init__(self) -> None:
        self._done: dict[int, Any] = {}

    def decode(self, value: Any) -> Any:
        kind = type(value)
        if kind is tuple:
            if value and type(value[0]) is list:
                return _each_once(value, self._done, lambda item: type(item) is list, self.decode)
            return tuple(map(self.decode, value))
        if kind is dict:
            return {key: self.decode(item) for key, item in value.items()}
        if kind is not list:
            return value
        done = self._done.get(id(value))
        if done is None:
            record = RECORDS[value[0]]
            if len(value) != len(_FIELDS[record]) + 1:
                raise ValueError(f"{record.__name__} needs {len(_FIELDS[record])} fields")
            done = record(
                *[item if type(item) in _SCALARS else self.decode(item) for item in value[1:]]
            )
            self._done[id(value)] = done
        return done


def _each_once(
    items: tuple[Any, ...],
    done: dict[int, Any],
    is_record: Callable[[Any], bool],
    convert: Callable[[Any], Any],
) -> tuple[Any, ...]:
    """A tuple of records, converted; ``done`` maps the id of each record
    already converted to its result. Thousands of sandboxes list the same
    entries, so a converted one is looked up without a call per item. The
    model's tuple fields hold records only; a tuple that holds anything
    else is converted item by item."""
    for item in items:
        if id(item) not in done:
            if not is_record(item):
                return tuple(map(convert, items))
            convert(item)
    return tuple(map(done.__getitem__, map(id, items)))
