#!/usr/bin/env python3
"""Checks that no layer of partcl includes a layer above it.

    check_layering.py SOURCE_DIR

The layer order is the line "Layer order: a, b, c" of SOURCE_DIR/docs/design.md (lowest
first). Every file under lib/ and include/partcl/ belongs to the layer of its first folder there
(lib/jit/kernel.cpp and include/partcl/jit/kernel.hpp to jit); files directly in those folders
(the umbrella partcl.hpp, lib/CMakeLists.txt) belong to none and are not checked. Each
#include <partcl/...> and each quoted #include (resolved against the file's folder, then lib/,
then include/) of a checked file must name a file of its own layer or of one below; the
generated <partcl/version.hpp> belongs to none. Exit status: 0 when every include points down,
1 listing each offending file:line, 2 when the tree or the order cannot be read.
"""
import os
import re
import sys

ORDER_LINE = re.compile(r"^\s*Layer order:\s*(.+?)\s*$")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SOURCE_EXTENSIONS = (".hpp", ".cpp", ".h", ".cu", ".cuh", ".inl")


class Unreadable(Exception):
    pass


def layer_order(source_dir):
    design = os.path.join(source_dir, "docs", "design.md")
    try:
        with open(design, encoding="utf-8") as f:
            lines = f.readlines()
    except OSError as e:
        raise Unreadable(f"cannot read the layer order: {e}")
    found = [ORDER_LINE.match(line) for line in lines]
    found = [m.group(1) for m in found if m]
    if len(found) != 1:
        raise Unreadable(f"{design}: expected one line 'Layer order: a, b, c' (lowest layer "
                         f"first), found {len(found)}")
    layers = [name.strip(" `.") for name in found[0].split(",")]
    if not all(layers) or len(set(layers)) != len(layers):
        raise Unreadable(f"{design}: the layer order '{found[0]}' has an empty or repeated name")
    return layers


def layer_of(relative):
    """The layer of a path relative to the source dir, None outside the layers."""
    parts = relative.replace(os.sep, "/").split("/")
    if parts[0] == "lib" and len(parts) > 2:
        return parts[1]
    if parts[:2] == ["include", "partcl"] and len(parts) > 3:
        return parts[2]
    return None


def included_path(source_dir, relative_file, kind, name):
    """The included file as a path relative to the source dir, or None when it is not partcl's."""
    if kind == "<":
        return os.path.join("include", name) if name.startswith("partcl/") else None
    candidates = [os.path.join(os.path.dirname(relative_file), name),
                  os.path.join("lib", name), os.path.join("include", name)]
    for candidate in candidates:
        if os.path.isfile(os.path.join(source_dir, candidate)):
            return os.path.normpath(candidate)
    return None  # a generated or outside file: no layer to check


def violations(source_dir):
    layers = layer_order(source_dir)
    rank = {name: i for i, name in enumerate(layers)}
    found, unknown = [], set()
    roots = [os.path.join(source_dir, "lib"), os.path.join(source_dir, "include", "partcl")]
    if not all(os.path.isdir(root) for root in roots):
        raise Unreadable(f"{source_dir}: no lib/ or include/partcl/ folder")
    for root in roots:
        for folder, subfolders, files in os.walk(root):
            subfolders.sort()
            for file in sorted(files):
                if not file.endswith(SOURCE_EXTENSIONS):
                    continue
                relative = os.path.relpath(os.path.join(folder, file), source_dir)
                layer = layer_of(relative)
                if layer is None:
                    continue
                if layer not in rank:
                    unknown.add(layer)
                    continue
                with open(os.path.join(source_dir, relative), encoding="utf-8",
                          errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        target = included_path(source_dir, relative, m.group(1), m.group(2))
                        target_layer = layer_of(target) if target else None
                        if target_layer is None:
                            continue
                        if target_layer not in rank:
                            unknown.add(target_layer)
                        elif rank[target_layer] > rank[layer]:
                            spelled = line.strip()
                            found.append(f"{relative}:{number}: {layer} includes {target_layer}, "
                                         f"a layer above it: {spelled}")
    if unknown:
        raise Unreadable("folders that are no layer of docs/design.md's 'Layer order': " +
                         ", ".join(sorted(unknown)) + " (add them to the order)")
    return layers, found


def main(argv):
    if len(argv) != 2:
        print("usage: check_layering.py SOURCE_DIR", file=sys.stderr)
        return 2
    try:
        layers, found = violations(argv[1])
    except Unreadable as e:
        print(f"layering: {e}", file=sys.stderr)
        return 2
    if found:
        print(f"layering: {len(found)} include(s) point up the layer order "
              f"({' -> '.join(layers)}):")
        for line in found:
            print("  " + line)
        return 1
    print(f"layering: every include points down the layer order ({' -> '.join(layers)})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
