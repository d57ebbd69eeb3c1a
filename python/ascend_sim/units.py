"""Quantities with units as ascend-sim writes them ("64MiB", "1.2ns", "1.65GHz", "200Gbps",
"1.6TB/s"): the same table as models/common/units.cpp, so sweep values become numbers."""

import re

# unit -> (kind, factor to the kind's base unit: B, ps, Hz, bit/s, B/s)
UNITS = {
    "B": ("size", 1.0), "KiB": ("size", 1024.0), "MiB": ("size", 1024.0**2), "GiB": ("size", 1024.0**3),
    "TiB": ("size", 1024.0**4), "KB": ("size", 1e3), "MB": ("size", 1e6), "GB": ("size", 1e9), "TB": ("size", 1e12),
    "ps": ("time", 1.0), "ns": ("time", 1e3), "us": ("time", 1e6), "ms": ("time", 1e9), "s": ("time", 1e12),
    "Hz": ("frequency", 1.0), "kHz": ("frequency", 1e3), "MHz": ("frequency", 1e6), "GHz": ("frequency", 1e9),
    "bps": ("bit_rate", 1.0), "Kbps": ("bit_rate", 1e3), "Mbps": ("bit_rate", 1e6), "Gbps": ("bit_rate", 1e9),
    "Tbps": ("bit_rate", 1e12),
    "B/s": ("byte_rate", 1.0), "KB/s": ("byte_rate", 1e3), "MB/s": ("byte_rate", 1e6), "GB/s": ("byte_rate", 1e9),
    "TB/s": ("byte_rate", 1e12), "KiB/s": ("byte_rate", 1024.0), "MiB/s": ("byte_rate", 1024.0**2),
    "GiB/s": ("byte_rate", 1024.0**3), "TiB/s": ("byte_rate", 1024.0**4),
}

# The unit a column of each kind is given in, and the suffix its name takes.
COLUMN_UNIT = {
    "size": (1.0, "_bytes"),
    "time": (1e3, "_ns"),  # base ps -> ns, as the summary's times
    "frequency": (1.0, "_hz"),
    "bit_rate": (1.0, "_bits_per_s"),
    "byte_rate": (1.0, "_bytes_per_s"),
}

_QUANTITY = re.compile(r"^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*([A-Za-z/]+)\s*$")


def parse(text):
    """"1.2GHz" -> (1.2e9, "frequency"); raises ValueError when it is not a quantity."""
    m = _QUANTITY.match(str(text))
    if not m or m.group(2) not in UNITS:
        raise ValueError(f"not a quantity with a unit: {text!r}")
    kind, factor = UNITS[m.group(2)]
    return float(m.group(1)) * factor, kind


def numeric_column(name, values):
    """A column of values as the CLI takes them -> (name with unit suffix, numbers).

    Quantities of one kind become numbers in COLUMN_UNIT's unit and the name gains its suffix;
    plain numbers stay as they are; anything else (names such as "lru") is returned unchanged.
    """
    values = list(values)
    try:
        return name, [int(v) if str(v).lstrip("+-").isdigit() else float(v) for v in values]
    except (TypeError, ValueError):
        pass
    try:
        parsed = [parse(v) for v in values]
    except ValueError:
        return name, values
    kinds = {kind for _, kind in parsed}
    if len(kinds) != 1:
        return name, values
    kind = kinds.pop()
    divisor, suffix = COLUMN_UNIT[kind]
    numbers = [v / divisor for v, _ in parsed]
    if kind == "size" and all(n.is_integer() for n in numbers):
        numbers = [int(n) for n in numbers]  # bytes are whole
    return name + suffix, numbers
