#!/usr/bin/env python3
"""Compiles the Swift blocks of every DocC article, as a reader would paste them.

Usage (from anywhere):
  scripts/article-blocks.py              every article of every catalog, Sources/<M>/<M>.docc/*.md
  scripts/article-blocks.py NAME...      only these articles (GettingStarted, or a path to one)

The rules, which CONTRIBUTING repeats:

- Each article's ```swift blocks, in order, are one program: the body of a `main.swift` in a
  module of its own (`<Article>Article`), so a block may use what an earlier block of the article declared, and code
  outside any declaration runs at the top level (with `await` and `try`). It imports the
  article's module and the library products that module depends on; anything else a block uses,
  it imports itself.
- What an article's blocks assume and do not show (the `Library` a test drives, a `delete()` a
  button calls) is declared in `Tests/ArticleBlocks/<Module>/<Article>.swift`, compiled beside
  the blocks; declarations only, never code that changes what a block means.
- The program compiles in Swift 6 mode with warnings as errors, against the debug build of the
  package (`swift build`, which the script runs first). It is compiled, never run.
- A block is left out only by a marker on the line right above its fence:
  `<!-- test: PATH -->`, for a block that is PATH's code between `// README: begin` and
  `// README: end`, which the test suite compiles and runs and `ReadmeExampleTests` checks
  against the block; or `<!-- compile: skip, REASON -->`, for a block that cannot compile here,
  such as SwiftUI code, which builds on Apple platforms only. A skip without a reason fails.
  Every other block compiles, or the check fails.

Errors name the article's own lines: the program carries `#sourceLocation` directives.

Environment:
  ARTICLE_BLOCKS_SCRATCH_PATH   the package's build folder (default: .build, which `swift test`
                                also uses, so CI compiles nothing again)
"""
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONTEXTS = os.path.join("Tests", "ArticleBlocks")
FENCE = "```swift"
SKIP = re.compile(r"<!-- compile: skip, (\S.*?) -->$")
SKIP_WITHOUT_REASON = re.compile(r"<!-- compile: skip\b.*-->$")
TESTED = re.compile(r"<!-- test: \S+ -->$")


def articles():
    """(module, path from the root) of every article, catalogs in name order."""
    found = []
    sources = os.path.join(ROOT, "Sources")
    for module in sorted(os.listdir(sources)):
        catalog = os.path.join("Sources", module, f"{module}.docc")
        if not os.path.isdir(os.path.join(ROOT, catalog)):
            continue
        for name in sorted(os.listdir(os.path.join(ROOT, catalog))):
            if name.endswith(".md"):
                found.append((module, os.path.join(catalog, name)))
    return found


def blocks(article):
    """The article's blocks to compile, as (first line's number, lines), and the problems of its
    markers."""
    lines = open(os.path.join(ROOT, article), encoding="utf-8").read().split("\n")
    compiled, problems, skipped = [], [], 0
    index = 0
    while index < len(lines):
        if lines[index].strip() != FENCE:
            index += 1
            continue
        marker = lines[index - 1].strip() if index > 0 else ""
        end = index + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        if end == len(lines):
            problems.append(f"{article}:{index + 1}: a Swift block that never ends")
        if SKIP.match(marker) or TESTED.match(marker):
            skipped += 1
        elif SKIP_WITHOUT_REASON.match(marker):
            problems.append(f"{article}:{index}: `{marker}` gives no reason; write "
                            "`<!-- compile: skip, REASON -->`, saying why the block cannot "
                            "compile here")
        else:
            compiled.append((index + 2, lines[index + 1:end]))
        index = end + 1
    return compiled, skipped, problems


def imports_of(module, description):
    """The article's module and the library products it depends on, directly or not."""
    targets = {target["name"]: target for target in description["targets"]}
    products = {product["name"] for product in description["products"]
                if "library" in product["type"]}
    found, pending = [], [module]
    while pending:
        name = pending.pop()
        if name in found or name not in targets:
            continue
        if name in products:
            found.append(name)
        pending.extend(targets[name].get("target_dependencies", []))
    return sorted(found)


def program(article, module_imports, compiled):
    """The article's blocks as one main.swift, each preceded by its place in the article."""
    text = [f"import {name}" for name in module_imports]
    for first_line, lines in compiled:
        text.append(f'#sourceLocation(file: "{article}", line: {first_line})')
        text.extend(lines)
        text.append("#sourceLocation()")
    return "\n".join(text) + "\n"


def main():
    chosen = sys.argv[1:]
    scratch = os.environ.get("ARTICLE_BLOCKS_SCRATCH_PATH", ".build")
    os.chdir(ROOT)
    build = subprocess.run(["swift", "build", "--scratch-path", scratch])
    if build.returncode != 0:
        sys.exit("error: the package does not build, so its articles' blocks cannot be compiled")
    bin_path = subprocess.run(["swift", "build", "--scratch-path", scratch, "--show-bin-path"],
                              check=True, capture_output=True, text=True).stdout.strip()
    modules = os.path.join(bin_path, "Modules")
    if not os.path.isfile(os.path.join(modules, "Milieu.swiftmodule")):
        sys.exit(f"error: no Milieu.swiftmodule in {modules}: where does this SwiftPM put modules?")
    description = json.loads(subprocess.run(
        ["swift", "package", "describe", "--type", "json"], check=True, capture_output=True,
        text=True).stdout)
    selected = [(module, article) for module, article in articles()
                if not chosen or any(article.endswith(f"/{name.split('/')[-1].removesuffix('.md')}.md")
                                     for name in chosen)]
    if not selected:
        sys.exit(f"error: no article matches {chosen}" if chosen else "error: no article found")
    failures, compiled_count, skipped_count = [], 0, 0
    with tempfile.TemporaryDirectory(prefix="article-blocks.") as scratch_folder:
        for module, article in selected:
            name = os.path.basename(article).removesuffix(".md")
            compiled, skipped, problems = blocks(article)
            skipped_count += skipped
            failures.extend(problems)
            if not compiled:
                print(f"  {article}: no block to compile ({skipped} left out by a marker)")
                continue
            folder = os.path.join(scratch_folder, name)
            os.makedirs(folder)
            main_file = os.path.join(folder, "main.swift")
            with open(main_file, "w", encoding="utf-8") as out:
                out.write(program(article, imports_of(module, description), compiled))
            sources = [main_file]
            context = os.path.join(CONTEXTS, module, f"{name}.swift")
            if os.path.exists(context):
                sources.append(context)
            command = ["swiftc", "-swift-version", "6", "-warnings-as-errors", "-wmo", "-c",
                       "-module-name", f"{name}Article", "-I", modules, "-o",
                       os.path.join(folder, f"{name}.o")] + sources
            run = subprocess.run(command, capture_output=True, text=True)
            compiled_count += len(compiled)
            status = "ok" if run.returncode == 0 else "FAILED"
            print(f"  {article}: {len(compiled)} blocks, {skipped} left out by a marker"
                  f"{', with ' + context if len(sources) > 1 else ''}: {status}")
            if run.returncode != 0:
                sys.stdout.write(run.stdout + run.stderr)
                failures.append(f"{article}: its blocks do not compile (errors above)")
    print(f"\n{compiled_count} blocks compiled, {skipped_count} left out by a marker, in "
          f"{len(selected)} articles.")
    if failures:
        print("\nArticle blocks that fail:", file=sys.stderr)
        for failure in failures:
            print(f"- {failure}", file=sys.stderr)
        print("\nFix the block, declare what it assumes in "
              f"{CONTEXTS}/<Module>/<Article>.swift, or, if it cannot compile here, mark it "
              "`<!-- compile: skip, REASON -->` (CONTRIBUTING, \"Articles\").", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
