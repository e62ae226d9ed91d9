"""One encoding for the results a child sends its parent: records, as plain
values ``marshal`` writes.

A child's answer is a list of results of one shape: a record (a Struct, or
a dataclass such as a loader's ``Harvest``), or a tuple or list of them.
How each shape is written is worked out once, from the type hints, so
sending a record costs no more than reading its fields:

- Fields of plain data (text, numbers, enums' values, JSON-shaped values,
  dicts and tuples of these) go as they are; only fields that hold records
  are walked.
- A record whose fields are all plain goes as the tuple of its fields.
- A record that holds records goes as a list of its fields, converted, and
  is written once however often it is met, so it comes back as one object:
  the JSON writer encodes each examined entry once per object, and thousands
  of sandboxes share entries.

``marshal`` is enough, and about ten times faster than ``pickle`` on these
values, because parent and child run the same interpreter and everything
sent is plain data.
"""

from __future__ import annotations

import dataclasses
import enum
import marshal
import types
import typing
from collections.abc import Callable, Sequence
from itertools import compress, count, repeat, starmap
from operator import attrgetter, is_
from typing import Any, Final, Generic, TypeVar

import msgspec

Result = TypeVar("Result")
Convert = Callable[[Any], Any]

_SCALARS: Final = frozenset({str, int, float, bool, bytes, type(None)})
_UNREADABLE: Final = (EOFError, ValueError, TypeError, IndexError, KeyError)
"""What reading data of another shape raises, from ``marshal`` or a record."""


class _Codec(msgspec.Struct, frozen=True):
    """How one shape is written and read back; None converts nothing."""

    encode: Convert | None = None
    decode: Convert | None = None
    plain_record: tuple[type, int] | None = None
    """For a record of plain fields, its class and width: a sequence of
    them is read in one pass."""
    shared: bool = False
    """Whether the shape is a record written once per object."""
    optional_of: tuple[Convert, Convert] | None = None
    """For ``X | None``: X's own encode and decode, which a record's field
    calls directly when its value is not None (a call less per field)."""

    @property
    def plain(self) -> bool:
        return self.encode is None


_PLAIN: Final = _Codec()


class Records(Generic[Result]):
    """Writes lists of results of one shape, and reads them back."""

    def __init__(self, shape: Any) -> None:
        self._answer = types.GenericAlias(list, (shape,))
        self._codecs: dict[Any, _Codec] = {}
        # Keyed by identity, within one call: the values are alive meanwhile.
        self._encoded: dict[int, Any] = {}
        self._decoded: dict[int, Any] = {}

    def dumps(self, results: Sequence[Result]) -> bytes:
        encode = self._codec(self._answer).encode
        try:
            return marshal.dumps(list(results) if encode is None else encode(results))
        finally:
            self._encoded.clear()

    def loads(self, data: bytes | bytearray) -> list[Result]:
        """The results ``dumps`` wrote; ValueError when ``data`` is not such
        an answer."""
        decode = self._codec(self._answer).decode
        try:
            value = marshal.loads(data)
            if type(value) is not list:
                raise ValueError("an answer is a list")
            results: list[Result] = value if decode is None else decode(value)
        except _UNREADABLE as error:
            raise ValueError(f"unreadable answer: {error}") from error
        finally:
            self._decoded.clear()
        return results

    def _codec(self, shape: Any) -> _Codec:
        codec = self._codecs.get(shape)
        if codec is None:
            codec = self._codecs[shape] = self._build(shape)
        return codec

    def _build(self, shape: Any) -> _Codec:
        origin = typing.get_origin(shape)
        args = typing.get_args(shape)
        if shape in _SCALARS or shape is Any or origin is typing.Literal:
            return _PLAIN
        if origin in (typing.Union, types.UnionType):
            return self._optional(shape, args)
        if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
            return self._sequence(tuple, args[0])
        if origin is list:
            return self._sequence(list, args[0])
        if origin is tuple:
            return self._fixed(args)
        if isinstance(origin, type) and issubclass(origin, dict):
            return self._mapping(origin, args)
        if isinstance(shape, type) and issubclass(shape, enum.Enum):
            return _enum(shape)
        if isinstance(shape, type) and (
            issubclass(shape, msgspec.Struct) or dataclasses.is_dataclass(shape)
        ):
            return self._record(shape)
        raise TypeError(f"{shape!r} cannot be sent between processes")

    def _optional(self, shape: Any, args: tuple[Any, ...]) -> _Codec:
        kinds = [arg for arg in args if arg is not type(None)]
        codecs = [self._codec(kind) for kind in kinds]
        if all(codec.plain for codec in codecs):
            return _PLAIN
        if len(kinds) != 1 or len(args) != 2:
            raise TypeError(f"{shape!r}: only records or None can be sent")
        encode, decode = _required(codecs[0])
        return _Codec(
            lambda value: None if value is None else encode(value),
            lambda value: None if value is None else decode(value),
            optional_of=(encode, decode),
        )

    def _sequence(self, container: type, item: Any) -> _Codec:
        codec = self._codec(item)
        if codec.plain:
            return _PLAIN
        if codec.plain_record is not None:
            return _plain_records(container, *codec.plain_record)
        encode, decode = _required(codec)
        if not codec.shared:
            return _Codec(
                lambda items: list(map(encode, items)),
                lambda items: container(map(decode, items)),
            )
        return _Codec(
            _each_once(encode, self._encoded, list),
            _each_once(decode, self._decoded, container),
        )

    def _fixed(self, args: tuple[Any, ...]) -> _Codec:
        codecs = [self._codec(arg) for arg in args]
        if all(codec.plain for codec in codecs):
            return _PLAIN
        encoders = [codec.encode or _as_is for codec in codecs]
        decoders = [codec.decode or _as_is for codec in codecs]
        return _Codec(
            lambda value: [f(item) for f, item in zip(encoders, value, strict=True)],
            lambda value: tuple(f(item) for f, item in zip(decoders, value, strict=True)),
        )

    def _mapping(self, container: type, args: tuple[Any, ...]) -> _Codec:
        # A Counter names only its keys' type; a bare dict names neither.
        key, item = (self._codec(arg) for arg in (*args, Any, Any)[:2])
        if not key.plain:
            raise TypeError(f"{container.__name__} keys must be plain to be sent")
        if item.plain:
            if container is dict:
                return _PLAIN
            return _Codec(dict, container)  # a Counter goes as a dict
        encode, decode = _required(item)
        return _Codec(
            lambda value: {k: encode(v) for k, v in value.items()},
            lambda value: container({k: decode(v) for k, v in value.items()}),
        )

    def _record(self, record: type) -> _Codec:
        names = _field_names(record)
        hints = typing.get_type_hints(record)
        walked = [(i, self._codec(hints[name])) for i, name in enumerate(names)]
        walked = [(i, codec) for i, codec in walked if not codec.plain]
        fields_of = _fields_getter(names)
        if not walked:
            return _plain_record(record, fields_of, len(names))
        return self._shared_record(record, fields_of, len(names), walked)

    def _shared_record(
        self,
        record: type,
        fields_of: Callable[[Any], tuple[Any, ...]],
        width: int,
        walked: list[tuple[int, _Codec]],
    ) -> _Codec:
        # An optional field's None is passed over here, its value converted
        # by the codec of what it holds (``optional_of``).
        fields = [(i, codec.optional_of or _required(codec)) for i, codec in walked]
        skips = [codec.optional_of is not None for _, codec in walked]
        encoders = [(i, pair[0], skip) for (i, pair), skip in zip(fields, skips, strict=True)]
        decoders = [(i, pair[1], skip) for (i, pair), skip in zip(fields, skips, strict=True)]
        encoded, decoded = self._encoded, self._decoded

        def encode(value: Any) -> Any:
            done = encoded.get(id(value))
            if done is None:
                done = list(fields_of(value))
                for position, convert, optional in encoders:
                    field = done[position]
                    if field is not None or not optional:
                        done[position] = convert(field)
                encoded[id(value)] = done
            return done

        def decode(item: Any) -> Any:
            done = decoded.get(id(item))
            if done is None:
                if type(item) is not list or len(item) != width:
                    raise ValueError(f"{record.__name__} needs {width} fields")
                # In place: an item met again is found in ``decoded`` first.
                for position, convert, optional in decoders:
                    field = item[position]
                    if field is not None or not optional:
                        item[position] = convert(field)
                done = decoded[id(item)] = record(*item)
            return done

        return _Codec(encode, decode, shared=True)


def _plain_record(record: type, fields_of: Callable[[Any], Any], width: int) -> _Codec:
    def decode(item: Any) -> Any:
        if len(item) != width:
            raise ValueError(f"{record.__name__} needs {width} fields")
        return record(*item)

    return _Codec(fields_of, decode, plain_record=(record, width))


def _plain_records(container: type, record: type, width: int) -> _Codec:
    """A sequence of records of plain fields: each the tuple of its fields,
    written and read in one pass without a call per record."""
    fields_of = _fields_getter(_field_names(record))

    def decode(items: Any) -> Any:
        if not set(map(len, items)) <= {width}:
            raise ValueError(f"{record.__name__} needs {width} fields")
        return container(starmap(record, items))

    return _Codec(lambda items: list(map(fields_of, items)), decode)


def _each_once(convert: Convert, done: dict[int, Any], container: type) -> Convert:
    """Converts a sequence of records written once per object; ``done`` maps
    the id of each one converted to its result. Thousands of sandboxes list
    the same entries, so one converted already is looked up without a call."""

    def each(items: Any) -> Any:
        if not items and type(items) in (list, tuple):  # most sequences: nothing to look up
            return [] if container is list else container()
        # Looked up at C speed; only the items not converted yet are visited
        # (``convert`` looks an item up again: it may be met twice here).
        found = list(map(done.get, map(id, items)))
        for index in compress(count(), map(is_, found, repeat(None))):
            found[index] = convert(items[index])
        return found if container is list else container(found)

    return each


def _enum(kind: type[enum.Enum]) -> _Codec:
    members = {member.value: member for member in kind}
    return _Codec(attrgetter("value"), members.__getitem__)


def _field_names(record: type) -> list[str]:
    """The record's fields, in the order its constructor takes them."""
    if issubclass(record, msgspec.Struct):
        return list(record.__struct_fields__)
    fields = dataclasses.fields(record)  # type: ignore[arg-type]
    if not all(field.init for field in fields):
        raise TypeError(f"{record.__name__} has fields its constructor does not take")
    return [field.name for field in fields]


def _fields_getter(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    if len(names) == 1:
        (name,) = names
        return lambda value: (getattr(value, name),)
    getter: Callable[[Any], tuple[Any, ...]] = attrgetter(*names)
    return getter


def _required(codec: _Codec) -> tuple[Convert, Convert]:
    assert codec.encode is not None and codec.decode is not None
    return codec.encode, codec.decode


def _as_is(value: Any) -> Any:
    return value
