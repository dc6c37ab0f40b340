#!/usr/bin/env python3
"""The layering checker on small trees made here: it passes a tree whose includes point down,
fails one with upward includes listing exactly those (file:line), and refuses a tree whose
design.md has no order or whose folders are not in it.

    test_check_layering.py CHECKER
"""
import os
import subprocess
import sys
import tempfile

failures = []


def make_tree(root, files):
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)


def run(checker, files):
    with tempfile.TemporaryDirectory() as root:
        make_tree(root, files)
        result = subprocess.run([sys.executable, checker, root], capture_output=True, text=True)
        return result.returncode, result.stdout + result.stderr


def expect(name, condition, output):
    if not condition:
        failures.append(f"{name}:\n{output}")


DESIGN = {"docs/design.md": "# Design\n\nLayer order: support, runtime, `models`, io\n"}
CLEAN = {
    "include/partcl/partcl.hpp": "#include <partcl/io/scene.hpp>\n",  # the umbrella: no layer
    "include/partcl/version.hpp": "#pragma once\n",
    "include/partcl/support/text.hpp": "#pragma once\n#include <string>\n",
    "include/partcl/runtime/queue.hpp": "#pragma once\n#include <partcl/support/text.hpp>\n",
    "include/partcl/models/fluid.hpp": "#include <partcl/runtime/queue.hpp>\n"
                                       "#include <partcl/version.hpp>\n",
    "include/partcl/io/scene.hpp": "#include <partcl/models/fluid.hpp>\n",
    "lib/CMakeLists.txt": "add_library(x io/scene.cpp)\n",
    "lib/runtime/private.hpp": "#pragma once\n",
    "lib/runtime/queue.cpp": '#include "private.hpp"\n#include <vector>\n',
    "lib/models/fluid.cpp": '#include "runtime/private.hpp"\n#include "generated.hpp"\n',
    "lib/io/scene.cpp": "// #include <partcl/io/scene.hpp> in a comment is no include\n"
                        "#  include <partcl/io/scene.hpp>\n",
}
UPWARD = dict(CLEAN)
UPWARD.update({
    # <...> from a public header, quoted through lib/ and through the file's own folder.
    "include/partcl/support/text.hpp": "#pragma once\n#include <string>\n"
                                       "#include <partcl/runtime/queue.hpp>\n",
    "lib/runtime/queue.cpp": '#include "private.hpp"\n\n#include "models/helper.hpp"\n',
    "lib/models/helper.hpp": "#pragma once\n",
    "lib/models/fluid.cpp": '#include "../io/scene_private.hpp"\n',
    "lib/io/scene_private.hpp": "#pragma once\n",
})


def main(checker):
    code, out = run(checker, {**DESIGN, **CLEAN})
    expect("a tree whose includes point down passes", code == 0, out)

    code, out = run(checker, {**DESIGN, **UPWARD})
    expect("upward includes fail with status 1", code == 1, out)
    listed = sorted(line.strip().split(": ")[0] for line in out.splitlines() if line.startswith("  "))
    want = ["include/partcl/support/text.hpp:3", "lib/models/fluid.cpp:1", "lib/runtime/queue.cpp:3"]
    expect(f"exactly the upward includes are listed, {want}", listed == want, out)
    expect("the message names both layers",
           "lib/runtime/queue.cpp:3: runtime includes models, a layer above it" in out, out)

    code, out = run(checker, {**CLEAN, "docs/design.md": "# Design\n"})
    expect("no order line is status 2 and says so", code == 2 and "Layer order" in out, out)

    code, out = run(checker, {**DESIGN, **CLEAN, "lib/extra/x.cpp": "#include <vector>\n"})
    expect("a folder outside the order is status 2 naming it", code == 2 and "extra" in out, out)

    for failure in failures:
        print("FAIL: " + failure)
    print(f"{len(failures)} check(s) failed" if failures else "every check passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
