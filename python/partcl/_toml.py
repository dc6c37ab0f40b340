"""A scenario dict as TOML text, for partcl's scenario reader (which checks every key and value
and names the problem). Tables are dicts, arrays of tables lists of dicts ([[plasma.species]]);
values are str, bool, int, float or lists of them."""

import math


def _value(value, where):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        return f'"{escaped}"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v, where) for v in value) + "]"
    raise TypeError(f"scenario key {where}: a {type(value).__name__} is no TOML value")


def _key(name):
    name = str(name)
    bare = name and all(c.isalnum() or c in "-_" for c in name)
    return name if bare else '"' + name.replace('"', '\\"') + '"'


def _table(lines, table, path):
    tables = []
    for name, value in table.items():
        where = ".".join(path + [str(name)])
        if isinstance(value, dict):
            tables.append((name, value))
        elif isinstance(value, (list, tuple)) and value and all(isinstance(v, dict) for v in value):
            tables.append((name, list(value)))
        else:
            lines.append(f"{_key(name)} = {_value(value, where)}")
    for name, value in tables:
        header = ".".join(_key(p) for p in path + [name])
        for sub in value if isinstance(value, list) else [value]:
            lines.append("")
            lines.append(f"[[{header}]]" if isinstance(value, list) else f"[{header}]")
            _table(lines, sub, path + [str(name)])


def dumps(scenario):
    if not isinstance(scenario, dict):
        raise TypeError("a scenario dict is a dict of tables")
    lines = []
    _table(lines, scenario, [])
    return "\n".join(lines).lstrip("\n") + "\n"
