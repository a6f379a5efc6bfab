#!/usr/bin/env bash
# Builds a new package from the README's Package.swift snippet, depending on a fresh clone of this
# repository as it is published — its main branch alone, with no tags — so that the dependency
# line the README gives resolves and builds for a newcomer, or this check fails.
#
# Usage (from anywhere; needs git and swift, no network):
#   scripts/readme-dependency.sh
#
# How it works:
#   1. Clones the committed HEAD of this checkout into a temporary folder with
#      `git clone --no-tags --single-branch`, and names its branch `main`, as the published
#      repository's is. Uncommitted changes are not in the clone: commit before running it.
#   2. Takes the README's block that starts with `// Package.swift` — the arguments of
#      `Package(…)` — and wraps it in a manifest, with the URL of its one `.package(url: …)`
#      replaced by the clone's path and nothing else changed.
#   3. Gives each target the snippet declares a source file that imports the products the snippet
#      gives it (an executable target prints a line; a test target holds one test).
#   4. `swift build --build-tests` in that package, which resolves the dependency from the clone
#      and builds it. A requirement the clone cannot meet — `from: "0.1.0"` against a repository
#      without tags — fails here: "no versions of 'milieu' match the requirement".
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
scratch=$(mktemp -d -t milieu-readme-dependency.XXXXXX)
trap 'rm -rf "$scratch"' EXIT

fail() {
  echo "error: $*" >&2
  exit 1
}

echo "readme-dependency: cloning $root (committed HEAD, main branch only, no tags)"
git clone --quiet --no-tags --single-branch "$root" "$scratch/Milieu"
git -C "$scratch/Milieu" checkout --quiet -B main
if [[ -n $(git -C "$scratch/Milieu" tag) ]]; then
  fail "the clone has tags, so it does not stand for the published repository"
fi

package="$scratch/App"
mkdir -p "$package"
python3 - "$root/README.md" "$scratch/Milieu" "$package" <<'PYTHON'
import os
import re
import sys

readme, clone, package = sys.argv[1:]
text = open(readme, encoding="utf-8").read()
marker = "// Package.swift\n"
if text.count(marker) != 1:
    sys.exit(f"error: README.md should have one block starting with {marker.strip()!r}; "
             f"it has {text.count(marker)}")
snippet = text.split(marker, 1)[1].split("```", 1)[0]
urls = re.findall(r'\.package\(url: "([^"]*)"', snippet)
if len(urls) != 1:
    sys.exit(f"error: the README's snippet should depend on Milieu by one .package(url: …); "
             f"it has {len(urls)}")
print(f"readme-dependency: the README's dependency line, with {urls[0]!r} as the clone:")
for line in snippet.splitlines():
    if ".package(" in line:
        print(f"  {line.strip()}")
snippet = snippet.replace(f'.package(url: "{urls[0]}"', f'.package(url: "{clone}"')
with open(os.path.join(package, "Package.swift"), "w", encoding="utf-8") as out:
    out.write("// swift-tools-version: 6.2\nimport PackageDescription\n\n"
              f'let package = Package(\n  name: "App",\n{snippet})\n')

# Each target, with the products the snippet gives it.
targets = re.split(r"\.(executableTarget|target|testTarget)\(", snippet)[1:]
if not targets:
    sys.exit("error: the README's snippet declares no target")
for kind, body in zip(targets[0::2], targets[1::2]):
    name = re.search(r'name: "([^"]+)"', body).group(1)
    products = re.findall(r'\.product\(name: "([^"]+)", package: "Milieu"\)', body)
    imports = "".join(f"import {product}\n" for product in products)
    folder = os.path.join(package, "Tests" if kind == "testTarget" else "Sources", name)
    os.makedirs(folder)
    if kind == "testTarget":
        source = (f"{imports}import Testing\n\n"
                  "@Test func theProductsLink() {\n  #expect(Bool(true))\n}\n")
        file = f"{name}.swift"
    elif kind == "executableTarget":
        source = f'{imports}\nprint("{name} builds with {", ".join(products)}")\n'
        file = "main.swift"
    else:
        source = f"{imports}\npublic enum {name} {{}}\n"
        file = f"{name}.swift"
    with open(os.path.join(folder, file), "w", encoding="utf-8") as out:
        out.write(source)
    print(f"readme-dependency: target {name} imports {', '.join(products) or 'nothing'}")
PYTHON

cd "$package"
echo "readme-dependency: resolving and building the package"
# No shared cache: the clone's path is new each run, and a cache entry for it would outlive it.
swift build --build-tests --disable-dependency-cache
echo "readme-dependency: the README's dependency line resolves and builds against a fresh clone"
