#!/usr/bin/env python3
"""A document's examples are tested code: every fenced block whose info string carries a tag
`api:NAME` must be, character for character, the region of the examples file between the lines
`// [api:NAME]` and `// [api:NAME end]` (`# ...` in Python), less the region's common
indentation. docs/api.md quotes tests/test_api_examples.cpp (```cpp blocks), docs/python.md
quotes examples/python/ (```python); the examples file's extension says which. Fails on a block
that differs, a tag without a region, a region that no block quotes, a marker that is
duplicated or never closed, and a tagged block of another language.

    check_api_docs.py DOC EXAMPLES...     check the document against its examples files
    check_api_docs.py --self-test DOC EXAMPLES...
                                          also check that a changed block, a missing region,
                                          an unquoted region and an unclosed marker fail
"""
import re
import sys
import textwrap

# Per examples file extension: the fence's language and the marker's comment.
LANGUAGES = {".cpp": ("cpp", "//"), ".py": ("python", "#")}
FENCE = re.compile(r"^```(\S*)(.*)$")
TAG = re.compile(r"\bapi:([A-Za-z0-9_]+)\b")


def language_of(examples_name):
    for extension, language in LANGUAGES.items():
        if examples_name.endswith(extension):
            return language
    raise SystemExit(f"check_api_docs.py: no language for {examples_name} "
                     f"(examples are {', '.join(LANGUAGES)})")


def regions(text, comment="//"):
    """{name: dedented text} of the marked regions, and a list of problems."""
    marker = re.compile(r"^\s*" + re.escape(comment) + r" \[api:([A-Za-z0-9_]+)( end)?\]\s*$")
    found, problems, open_name, lines = {}, [], None, []
    for number, line in enumerate(text.splitlines(), 1):
        m = marker.match(line)
        if not m:
            if open_name is not None:
                lines.append(line)
            continue
        name, end = m.group(1), m.group(2) is not None
        if not end:
            if open_name is not None:
                problems.append(f"line {number}: [api:{name}] opens inside [api:{open_name}]")
            elif name in found:
                problems.append(f"line {number}: [api:{name}] marked twice")
            open_name, lines = name, []
        elif name != open_name:
            problems.append(f"line {number}: [api:{name} end] closes no open [api:{name}]")
        else:
            found[name] = textwrap.dedent("\n".join(lines) + "\n")
            open_name = None
    if open_name is not None:
        problems.append(f"[api:{open_name}] is never closed")
    return found, problems


def blocks(text):
    """[(name, language, text, line)] of the fenced blocks tagged api:NAME."""
    found, inside, lines = [], None, []
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if inside is None:
            if m and m.group(0) != "```":
                tag = TAG.search(m.group(2))
                inside = (tag.group(1) if tag else None, m.group(1), number)
                lines = []
            elif m:
                inside = (None, "", number)
                lines = []
        elif line.startswith("```"):
            name, language, start = inside
            if name is not None:
                found.append((name, language, "\n".join(lines) + "\n", start))
            inside = None
        else:
            lines.append(line)
    return found


def check(doc_text, examples, doc_name="docs/api.md"):
    """The problems found, one line each; empty when the examples are true. `examples`:
    [(file name, text)], whose regions the document quotes between them."""
    marked, where_marked, problems = {}, {}, []
    for examples_name, examples_text in examples:
        found, found_problems = regions(examples_text, language_of(examples_name)[1])
        problems += [f"{examples_name}: {p}" for p in found_problems]
        for name, text in found.items():
            if name in marked:
                problems.append(f"{examples_name}: [api:{name}] is marked in {where_marked[name]} too")
            marked[name], where_marked[name] = text, examples_name
    fences = {language_of(name)[0] for name, _ in examples}
    quoted = set()
    for name, language, text, line in blocks(doc_text):
        where = f"{doc_name}:{line}: api:{name}"
        quoted.add(name)
        if name in where_marked:
            fence = language_of(where_marked[name])[0]
        else:
            fence = next(iter(fences)) if len(fences) == 1 else language
        if language != fence:
            problems.append(f"{where}: a tagged block must be ```{fence}, not ```{language}")
        elif name not in marked:
            problems.append(f"{where}: no region [api:{name}] in " +
                            ", ".join(n for n, _ in examples))
        elif text != marked[name]:
            problems.append(f"{where}: differs from the region in {where_marked[name]}:\n" +
                            "".join(diff(marked[name], text)))
    for name in sorted(set(marked) - quoted):
        problems.append(f"{where_marked[name]}: region [api:{name}] is quoted by no block of {doc_name}")
    return problems


def diff(expected, got):
    import difflib
    return difflib.unified_diff(expected.splitlines(True), got.splitlines(True),
                                "tested code", "docs", n=1)


def self_test(doc_text, examples):
    """Each way of going wrong must be reported; returns the cases that were not."""
    first = blocks(doc_text)[0]
    name = first[0]
    changed = doc_text.replace(first[2], first[2].replace("\n", " \n", 1), 1)
    unclosed = []
    for examples_name, examples_text in examples:
        comment = language_of(examples_name)[1]
        unclosed.append((examples_name, examples_text.replace(f"{comment} [api:{name} end]",
                                                              f"{comment} (removed)", 1)))
    cases = {
        "a changed block": (changed, examples),
        "a block without its region": (doc_text.replace(f"api:{name}", "api:no_such_region", 1),
                                       examples),
        "a region no block quotes": (doc_text.replace(f"api:{name}", "", 1), examples),
        "an unclosed marker": (doc_text, unclosed),
    }
    return [what for what, (d, e) in cases.items() if not check(d, e, "doc")]


def main(argv):
    test = argv[1:2] == ["--self-test"]
    args = argv[2:] if test else argv[1:]
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(args[0], encoding="utf-8") as f:
        doc_text = f.read()
    examples = []
    for name in args[1:]:
        with open(name, encoding="utf-8") as f:
            examples.append((name, f.read()))
    problems = check(doc_text, examples, args[0])
    if test:
        problems += [f"self-test: {what} was not reported" for what in self_test(doc_text, examples)]
    for p in problems:
        print(p, file=sys.stderr)
    if not problems:
        print(f"{len(blocks(doc_text))} examples of {args[0]} are the tested code of "
              f"{', '.join(args[1:])}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
