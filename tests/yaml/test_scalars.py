"""Plain scalars resolve as Kubernetes' go-yaml v2 resolver does
(INTEGRATIONS.md §4.4, docs/yaml.md)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from lint.yaml.scalars import mapping_key, resolve_plain

RESOLVED: list[tuple[str, Any]] = [
    # YAML 1.1 booleans, every spelling go-yaml v2 knows.
    *[
        (word, True)
        for word in ["y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE"]
    ],
    *[
        (word, False)
        for word in ["n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE"]
    ],
    # Other spellings stay strings.
    ("tRue", "tRue"),
    ("yES", "yES"),
    ("oN", "oN"),
    ("enabled", "enabled"),
    # Nulls.
    ("", None),
    ("~", None),
    ("null", None),
    ("Null", None),
    ("NULL", None),
    ("nULL", "nULL"),
    # Integers: decimal, signs, hex, binary, octal with a leading 0 or 0o.
    ("0", 0),
    ("53", 53),
    ("+53", 53),
    ("-53", -53),
    ("0777", 511),
    ("0o17", 15),
    ("0x1F", 31),
    ("-0x10", -16),
    ("0b101", 5),
    ("-0b11", -3),
    ("1_000", 1000),
    ("0x_ff", 255),
    # A leading zero with a non-octal digit is not an integer, but a float.
    ("08", 8.0),
    ("09", 9.0),
    # Floats, including an exponent without a dot, which YAML 1.1 reads as text.
    ("1.5", 1.5),
    ("1.", 1.0),
    ("1e2", 100.0),
    ("1E+2", 100.0),
    ("-1.5e-3", -0.0015),
    (".5", 0.5),
    ("-.5", -0.5),
    (".5e1", 5.0),
    ("1_0.5", 10.5),
    (".inf", math.inf),
    (".Inf", math.inf),
    ("+.INF", math.inf),
    ("-.inf", -math.inf),
    # Overflowing floats stay text: strconv.ParseFloat reports a range error.
    ("1e400", "1e400"),
    (".5e400", ".5e400"),
    # Integers past uint64 become floats; past int64 downwards too.
    ("9223372036854775807", 9223372036854775807),
    ("18446744073709551615", 18446744073709551615),
    ("18446744073709551616", 18446744073709551616.0),
    ("-9223372036854775809", -9223372036854775809.0),
    # No sexagesimal numbers, no timestamps: they stay strings.
    ("1:20", "1:20"),
    ("190:20:30", "190:20:30"),
    ("2024-01-01", "2024-01-01"),
    ("2001-12-14t21:59:43.10-05:00", "2001-12-14t21:59:43.10-05:00"),
    # Text that only looks numeric.
    ("-", "-"),
    ("+", "+"),
    ("._5", "._5"),
    (".5_0", ".5_0"),
    (".", "."),
    ("0x", "0x"),
    ("1.2.3", "1.2.3"),
    ("+inf", "+inf"),
    ("٣", "٣"),  # a non-ASCII digit is not a digit
    ("10.0.0.0/8", "10.0.0.0/8"),
    ("<<", "<<"),
]


@pytest.mark.parametrize(("text", "expected"), RESOLVED)
def test_plain_scalar_resolves_like_go_yaml_v2(text: str, expected: Any) -> None:
    value = resolve_plain(text)
    assert type(value) is type(expected)
    assert value == expected


@pytest.mark.parametrize("text", [".nan", ".NaN", ".NAN"])
def test_nan_spellings(text: str) -> None:
    value = resolve_plain(text)
    assert isinstance(value, float)
    assert math.isnan(value)


KEYS: list[tuple[Any, str | None]] = [
    ("name", "name"),
    (80, "80"),
    (-1, "-1"),
    (True, "true"),
    (False, "false"),
    (1.5, "1.5"),
    (100000.0, "100000"),
    (1e6, "1e+06"),
    (1e20, "1e+20"),
    (0.0001, "0.0001"),
    (0.00001, "1e-05"),
    (3.14159265, "3.1415927"),  # float32 precision, as sigs.k8s.io/yaml formats keys
    (0.0, "0"),
    (math.inf, ".inf"),
    (-math.inf, "-.inf"),
    (math.nan, ".nan"),
    (None, None),
    (2**63, None),  # uint64 keys are refused
]


@pytest.mark.parametrize(("key", "expected"), KEYS)
def test_mapping_keys_become_json_member_names(key: Any, expected: str | None) -> None:
    assert mapping_key(key) == expected
