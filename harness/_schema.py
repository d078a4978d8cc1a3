"""YAML with line numbers, and JSON Schema validation that reports file and line.

Specs, profiles and vectors are reviewed data; when one is wrong the author needs
the file, the line, the field, the value found and what is allowed. PyYAML's node
tree knows the lines; we keep a map from each value's path to its line while
building the plain data, and translate jsonschema errors through it.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

import fastjsonschema
import jsonschema
import yaml
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from harness.errors import SpecError, UserError
from harness.paths import SPECS_DIR, read_input

SCHEMA_DIR = SPECS_DIR / "schemas"

PathKey = tuple[str | int, ...]

# LibYAML's loader when PyYAML has it (ten times faster, same node marks).
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
MAX_SPEC_BYTES = 8 << 20  # the largest spec or vector file read: reviewed data is far smaller


class _Refused(UserError):
    """YAML that a spec may not hold, at a line: an alias (so that no file expands beyond its
    own size, a YAML bomb), a key given twice or a merge key (which would silently decide
    between two values), or a date no calendar has."""

    def __init__(self, line: int, message: str) -> None:
        self.line = line
        self.message = message


_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_MERGE = "tag:yaml.org,2002:merge"


@dataclass(frozen=True)
class LoadedYaml:
    """Plain data from a YAML file plus the 1-based line of every value in it."""

    path: Path
    data: Any
    lines: dict[PathKey, int]

    def line_of(self, key: PathKey) -> int | None:
        """The line of the value at `key`, or of its nearest enclosing value."""
        while key not in self.lines and key:
            key = key[:-1]
        return self.lines.get(key)


def load_yaml(path: str | Path) -> LoadedYaml:
    """Load one YAML (or JSON) document; syntax errors become SpecError(file, line).

    Cached per file and modification time: a run reads each spec file once.
    """
    path = Path(path)
    try:
        stamp = path.stat().st_mtime_ns
    except OSError as exc:
        raise SpecError(path, None, f"cannot read file: {exc.strerror}") from exc
    return _load_yaml(path, stamp)


@cache
def _load_yaml(path: Path, stamp: int) -> LoadedYaml:
    """The safe subset of YAML: safe tags only, no aliases, at most MAX_SPEC_BYTES."""
    try:
        size = path.stat().st_size
        if size > MAX_SPEC_BYTES:
            raise SpecError(path, None, f"file is {size:,} bytes; at most {MAX_SPEC_BYTES:,}")
        text = read_input(path).decode("utf-8")
    except OSError as exc:
        raise SpecError(path, None, f"cannot read file: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise SpecError(path, None, f"not UTF-8 text: {exc.reason}") from exc
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            raise SpecError(path, 1, "file is empty")
        lines: dict[PathKey, int] = {}
        _record_lines(node, (), lines, set())
        data = loader.construct_document(node)
    except _Refused as exc:
        raise SpecError(path, exc.line, exc.message) from None
    except _Alias:
        message = "YAML aliases (*name) are not allowed in specs: write the value out"
        raise SpecError(path, _alias_line(text), message) from None
    except RecursionError:
        raise SpecError(path, None, "YAML nested too deeply") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        raise SpecError(path, line, f"YAML syntax: {_yaml_problem(exc, text)}") from exc
    except yaml.YAMLError as exc:
        raise SpecError(path, None, f"YAML: {exc}") from exc
    finally:
        loader.dispose()
    return LoadedYaml(path, data, lines)


def _record_lines(node: yaml.Node, key: PathKey, lines: dict[PathKey, int], seen: set[int]) -> None:
    """Note the line of every value, refusing what a spec may not hold (_Refused): a node
    met twice, as a value or as a key, is an alias's (_Alias: the node's own marks are its
    anchor's, so the alias's line is found apart, by _alias_line)."""
    if id(node) in seen:
        raise _Alias
    seen.add(id(node))
    lines[key] = node.start_mark.line + 1
    if isinstance(node, yaml.ScalarNode) and node.tag == _TIMESTAMP:
        _verify_date(node)
    if isinstance(node, yaml.MappingNode):
        names: set[str] = set()
        for k, v in node.value:
            name = k.value if isinstance(k, yaml.ScalarNode) else str(k.start_mark)
            if k.tag == _MERGE:
                raise _Refused(k.start_mark.line + 1, "YAML merge keys (<<) are not allowed")
            if name in names:
                raise _Refused(k.start_mark.line + 1, f"key {name!r} appears twice")
            names.add(name)
            _record_lines(k, (*key, "<key>", name), {}, seen)  # a key is a node an alias can name
            lines[(*key, name)] = k.start_mark.line + 1
            _record_lines(v, (*key, name), lines, seen)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _record_lines(item, (*key, i), lines, seen)


class _Alias(UserError):
    """A node met twice while noting lines: some alias (*name) names it (the spec's
    author's to fix, so a user error, worded as a SpecError before it leaves)."""


def _alias_line(text: str) -> int | None:
    """The 1-based line of the first alias (*name) in `text`, read from the event stream.

    Only on the way to an error: a composed alias node carries its anchor's marks, not
    its own, so the line the author must fix is only in the alias event. The pure-Python
    parser gives the same marks as LibYAML and reads the text once, without expanding.
    """
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.AliasEvent):
            return event.start_mark.line + 1 if event.start_mark else None
    return None


def _yaml_problem(exc: yaml.MarkedYAMLError, text: str) -> str:
    """The parser's complaint in one phrase. LibYAML splits a duplicate anchor's message into
    a context ("found duplicate anchor; first occurrence", at the first) and a problem
    ("second occurrence", at the line reported), and names no alias it cannot find; both
    are put back together here, the alias's name read from the text at its mark."""
    problem = exc.problem or str(exc)
    mark = exc.problem_mark
    if problem == "found undefined alias" and mark is not None:
        lines = text.splitlines()
        found = (
            re.match(r"\*[^\s,\[\]{}]+", lines[mark.line][mark.column :])
            if mark.line < len(lines)
            else None
        )
        return f"found undefined alias {found.group()}" if found else problem
    context = exc.context or ""
    if context.endswith("; first occurrence") and exc.context_mark is not None:
        what = context.removesuffix("; first occurrence")
        return f"{what} (first on line {exc.context_mark.line + 1}, {problem} here)"
    return problem


_DATES = yaml.constructor.SafeConstructor()  # builds a date node alone, as the loader would


def _verify_date(node: yaml.ScalarNode) -> None:
    """An unquoted date YAML reads as one must be a real date (2024-02-30 is none)."""
    try:
        _DATES.construct_yaml_timestamp(node)
    except ValueError as exc:
        raise _Refused(node.start_mark.line + 1, f"{node.value} is not a date: {exc}") from None


def _schema_files() -> list[Path]:
    return sorted(SCHEMA_DIR.glob("*.json"))


@cache
def _registry() -> Registry:
    """Every schema in specs/schemas, so `$ref: common.schema.json#...` resolves offline.

    Not checked against the metaschema here (`check_schemas` does that, for `chcert
    vectors check` and the tests): the check takes most of a second, and every process
    that loads a profile or a vector would pay it.
    """
    resources = []
    for file in _schema_files():
        with file.open(encoding="utf-8") as fh:
            contents = json.load(fh)
        resources.append((file.name, Resource.from_contents(contents, DRAFT202012)))
    return Registry().with_resources(resources)


def schema_contents(schema_name: str) -> Any:
    """One schema of specs/schemas as read, by file name ('common.schema.json')."""
    return _registry().contents(schema_name)


def check_schemas() -> int:
    """Check every schema file against the JSON Schema draft 2020-12 metaschema; how
    many were checked. A schema that is not one raises SpecError naming its file."""
    files = _schema_files()
    for file in files:
        try:
            jsonschema.Draft202012Validator.check_schema(_registry().contents(file.name))
        except jsonschema.SchemaError as exc:
            where = "/".join(map(str, exc.absolute_path)) or "(top level)"
            raise SpecError(
                file, None, f"not a valid JSON Schema at {where}: {exc.message}"
            ) from exc
    return len(files)


@cache
def validator(schema_name: str) -> jsonschema.Draft202012Validator:
    """A validator for one schema of specs/schemas, by file name ('profile.schema.json')."""
    registry = _registry()
    contents = registry.contents(schema_name)
    return jsonschema.Draft202012Validator(contents, registry=registry)


@cache
def compiled_def(schema_name: str, definition: str) -> Callable[[Any], str | None]:
    """A fast checker for one `$defs` entry (e.g. one op's reply): None, or the first problem.

    Every reply of the game passes through here, so the entry is bundled (its
    `$ref`s inlined) and compiled to Python by fastjsonschema, about ten times
    faster than interpreting it; the schema keeps to what drafts 07 and 2020-12
    share.
    """
    registry = _registry()
    bundled = _inline_refs(
        registry.contents(schema_name)["$defs"][definition], schema_name, registry
    )
    check = fastjsonschema.compile(
        {"$schema": "http://json-schema.org/draft-07/schema#", **bundled}
    )

    def first_problem(instance: Any) -> str | None:
        try:
            check(instance)
        except fastjsonschema.JsonSchemaValueException as exc:
            precise = _first_error(schema_name, definition, instance)
            return precise or str(exc.message).replace("data.", "", 1).replace("data ", "", 1)
        return None

    return first_problem


def _first_error(schema_name: str, definition: str, instance: Any) -> str | None:
    """The first problem, said the way a vendor reads it (`config.limits is missing`).

    Only called on a reply already found wrong, so the slower interpreting
    validator costs nothing on the hot path.
    """
    ref = {"$ref": f"{schema_name}#/$defs/{definition}"}
    checker = jsonschema.Draft202012Validator(ref, registry=_registry())
    # A number the game sent with a fraction is a Decimal here (adapters/base.py): judged
    # and shown as the number it was sent, 200.0, never as Decimal('200.0').
    shown = _as_sent(instance)
    err = next(iter(sorted(checker.iter_errors(shown), key=lambda e: e.path)), None)
    if err is None:
        return None
    where = ".".join(str(p) for p in err.absolute_path)
    if err.validator == "required" and isinstance(err.validator_value, list):
        have = err.instance if isinstance(err.instance, dict) else {}
        missing = [k for k in err.validator_value if k not in have]
        return ", ".join(f"{where + '.' if where else ''}{k} is missing" for k in missing)
    return f"{where or '(the reply)'}: {err.message}"


class _SentNumber(Decimal):
    """A number the game sent with a fraction, judged as the Decimal it is and written in
    a message as the game wrote it."""

    def __repr__(self) -> str:
        return str(self)


def _as_sent(value: Any) -> Any:
    """`value` with each Decimal one whose message shows it as the game wrote it."""
    return with_decimals(value, _SentNumber)


def with_decimals(value: Any, convert: Callable[[Decimal], Any]) -> Any:
    """A parsed JSON value with each Decimal in it (a number the game sent with a
    fraction, harness/adapters/base.py) converted."""
    if isinstance(value, Decimal):
        return convert(value)
    if isinstance(value, dict):
        return {k: with_decimals(v, convert) for k, v in value.items()}
    if isinstance(value, list):
        return [with_decimals(v, convert) for v in value]
    return value


def write_generated(path: Path, wanted: str, command: str, argv: list[str] | None) -> int:
    """`python -m MODULE [--check]` of a schema generated from code: write `wanted` to
    `path`, or with --check exit 1 when the file differs (tests and CI hold it equal)."""
    check = "--check" in (sys.argv[1:] if argv is None else argv)
    if path.read_text(encoding="utf-8") == wanted:
        return 0
    if check:
        print(f"{path} is out of date: {command}", file=sys.stderr)
        return 1
    path.write_text(wanted, encoding="utf-8")
    print(f"wrote {path}")
    return 0


def _inline_refs(node: Any, base: str, registry: Registry) -> Any:
    """A copy of a schema node with every `$ref` replaced by what it points to."""
    if isinstance(node, dict):
        if "$ref" in node:
            uri, _, fragment = node["$ref"].partition("#")
            target: Any = registry.contents(uri or base)
            for part in filter(None, fragment.split("/")):
                target = target[part]
            return _inline_refs(target, uri or base, registry)
        return {k: _inline_refs(v, base, registry) for k, v in node.items()}
    if isinstance(node, list):
        return [_inline_refs(v, base, registry) for v in node]
    return node


def validate(doc: LoadedYaml, schema_name: str, data: Any = None, base: PathKey = ()) -> None:
    """Validate `data` (default: the whole document) and raise the first error with its line."""
    instance = doc.data if data is None else data
    errors = sorted(
        validator(schema_name).iter_errors(instance), key=lambda e: list(map(str, e.path))
    )
    if not errors:
        return
    err = errors[0]
    key: PathKey = (*base, *err.absolute_path)
    field = "/".join(str(p) for p in key) or "(top level)"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    raise SpecError(
        doc.path,
        doc.line_of(key),
        f"field {field}: {_describe(err)} [schema {schema_name}]{more}",
    )


def _describe(err: jsonschema.ValidationError) -> str:
    """A message naming the value found and what is allowed."""
    if err.validator == "enum":
        values: Any = err.validator_value
        return f"value {err.instance!r} is not allowed; allowed: {', '.join(map(repr, values))}"
    if err.validator == "additionalProperties" and isinstance(err.schema, dict):
        keys = sorted(err.schema.get("properties", {}))
        return f"{err.message}; allowed keys: {', '.join(keys)}"
    return err.message
