#!/usr/bin/env python3
"""Checks that the folders of src/ are layered: every #include of a tessera header points down.

LAYERS below is the one statement of the order (docs/ARCHITECTURE.md, "Layers", draws it). A file
in src/<folder>/ may include headers of its own folder and of any folder of a lower layer; folders
of one layer are independent of each other (no include between them). src/tessera.hpp, the
umbrella header, may include anything; nothing in src/ includes it. Every folder of src/ must be
listed.

  python3 scripts/check_layers.py [SRC_DIR]          # fails naming each offending file and line
  python3 scripts/check_layers.py --graph [SRC_DIR]  # prints the folder -> folder includes
"""

import os
import re
import sys

# Lowest first. Folders on one line are one layer.
LAYERS = [
    ["core"],  # errors, dtypes, config, stats, memory pool, the core runtime state
    ["partition"],  # boxes, tilings, process grids, views
    ["data"],  # Store: distributed buffers
    ["tasks"],  # task bodies, privileges and partition constraints
    ["program"],  # the register program and its interpreter
    ["comm", "jit"],  # communicators and exchanges; compiled kernels
    ["fusion"],  # tasks, the op window, planner, executor, the runtime state
    ["array"],  # the user API: Array<T>, creation, operators, reductions, shapes
    ["io", "kernels", "linalg", "sparse"],  # checkpoints, local tasks, dense and sparse linear algebra
    ["runtime"],  # ts::Runtime: makes and owns everything
]

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]tessera/([^">]+)[">]')
SOURCE_SUFFIXES = (".hpp", ".cpp", ".h", ".cc", ".cu", ".in")


def level_of():
    levels = {}
    for i, layer in enumerate(LAYERS):
        for folder in layer:
            if folder in levels:
                raise SystemExit(f"check_layers.py: {folder} is listed twice in LAYERS")
            levels[folder] = i
    return levels


def includes(src):
    """(file relative to src, line number, including folder or None for src/, included path)"""
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(SOURCE_SUFFIXES):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src)
            parts = rel.split(os.sep)
            folder = parts[0] if len(parts) > 1 else None
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if m:
                        yield rel, number, folder, m.group(1)


def main(argv):
    graph = "--graph" in argv
    args = [a for a in argv if a != "--graph"]
    here = os.path.dirname(os.path.abspath(__file__))
    src = args[0] if args else os.path.join(here, os.pardir, "src")
    levels = level_of()
    errors = []
    for entry in sorted(os.listdir(src)):
        if os.path.isdir(os.path.join(src, entry)) and entry not in levels:
            errors.append(f"src/{entry}/: a folder that scripts/check_layers.py's LAYERS does not list")
    edges = {}
    for rel, number, folder, target in includes(src):
        where = f"src/{rel}:{number}"
        tparts = target.split("/")
        tfolder = tparts[0] if len(tparts) > 1 else None
        if tfolder is None:
            errors.append(f"{where}: includes tessera/{target}, the umbrella header (only applications include it)")
            continue
        if tfolder not in levels:
            errors.append(f"{where}: includes tessera/{target}, of a folder LAYERS does not list")
            continue
        if folder is None or folder == tfolder:
            continue
        if folder not in levels:
            continue  # reported above
        edges.setdefault(folder, set()).add(tfolder)
        if levels[tfolder] > levels[folder]:
            errors.append(f"{where}: {folder}/ includes tessera/{target}: {tfolder}/ is a higher layer")
        elif levels[tfolder] == levels[folder]:
            errors.append(f"{where}: {folder}/ includes tessera/{target}: {tfolder}/ is of the same layer")
    if graph:
        for layer in reversed(LAYERS):
            for folder in layer:
                below = sorted(edges.get(folder, ()), key=lambda f: (-levels[f], f))
                print(f"{folder} -> {' '.join(below)}")
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        print(f"check_layers.py: {len(errors)} include(s) against the layering (LAYERS in scripts/check_layers.py)",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
