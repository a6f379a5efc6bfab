#!/usr/bin/env bash
# Builds the DocC documentation of every module that has a documentation catalog, with the
# toolchain's own `docc` (no swift-docc-plugin), and fails on any documentation warning.
#
# Usage:
#   scripts/docs.sh              # every module with a catalog, Sources/<Module>/<Catalog>.docc
#   scripts/docs.sh Milieu ...   # only the named modules
#   scripts/docs.sh --site       # also a website of every module, to open in a browser
#
# Output:  docs-output/<Module>.doccarchive   (static-hosting layout; ignored by git)
#          docs-output/site/                  (with --site: one folder per module and a landing
#                                             page that says what each module is for and links
#                                             its articles; serve it, for instance with
#                                             `python3 -m http.server --bind 127.0.0.1
#                                             --directory docs-output/site 8000`, and open
#                                             http://127.0.0.1:8000/ — DocC's pages load their
#                                             content with scripts, which browsers refuse to run
#                                             from file:// addresses)
# Scratch: .build-docs/                       (its own build folder, so it never waits on .build)
#
# Environment:
#   DOCC                    the docc executable (default: `docc` on PATH, else next to `swift`)
#   DOCS_OUTPUT_DIR         where the archives go (default: docs-output)
#   DOCS_SCRATCH_PATH       the build folder (default: .build-docs); CI passes .build to reuse the
#                           debug build `swift test` just made instead of compiling it again
#   DOCS_HOSTING_BASE_PATH  passed to `docc convert --hosting-base-path` when set; with --site,
#                           the path the site is served under (each module then lives at
#                           <path>/<Module>)
#
# How it works:
#   1. `swift build` the package into .build-docs (compile errors stop here, with the log shown).
#   2. `swift package dump-symbol-graph --emit-extension-block-symbols` writes one symbol graph per
#      module, plus `<Module>@<Other>.symbols.json` for each extension a module makes to another
#      module's types (MilieuAlerts extends Milieu's EnvironmentValues, for instance).
#   3. For each module, a private folder receives only `<Module>.symbols.json` and
#      `<Module>@*.symbols.json`, and `docc convert --warnings-as-errors` runs on it. Handing docc
#      the graphs of other modules would merge them into the archive, and a lone
#      `<Other>@<Module>.symbols.json` without its `<Other>.symbols.json` crashes docc 6.3.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
readonly root="$PWD"
readonly scratch="${DOCS_SCRATCH_PATH:-$root/.build-docs}"
readonly output="${DOCS_OUTPUT_DIR:-$root/docs-output}"
readonly logs="$scratch/docs-logs"
readonly graphs_by_module="$scratch/docs-symbol-graphs"

fail() {
  echo "docs: error: $*" >&2
  exit 1
}

# Prints the whole of a log file, indented, to standard error.
show_log() {
  sed 's/^/    /' "$1" >&2
}

find_docc() {
  if [[ -n "${DOCC:-}" ]]; then
    echo "$DOCC"
  elif command -v docc >/dev/null 2>&1; then
    command -v docc
  elif [[ -x "$(dirname "$(command -v swift)")/docc" ]]; then
    echo "$(dirname "$(command -v swift)")/docc"
  elif command -v xcrun >/dev/null 2>&1 && xcrun --find docc >/dev/null 2>&1; then
    xcrun --find docc
  else
    return 1
  fi
}

docc_bin="$(find_docc)" || fail "no docc found; set DOCC or put the toolchain's bin on PATH"
readonly docc_bin

# --site: build a website of the modules too. Anything else names a module.
site=false
requested=()
for argument in "$@"; do
  case "$argument" in
    --site) site=true ;;
    -*) fail "unknown option $argument (the one option is --site)" ;;
    *) requested+=("$argument") ;;
  esac
done
readonly site

# The modules to document, each with its catalog: every Sources/<Module>/*.docc, or only the
# modules named as arguments. (Two arrays side by side: macOS's bash 3.2 has no associative ones.)
modules=()
catalogs=()
shopt -s nullglob
if ((${#requested[@]} > 0)); then
  for module in "${requested[@]}"; do
    found=("Sources/$module/"*.docc)
    ((${#found[@]} > 0)) || fail "module $module has no catalog at Sources/$module/*.docc"
    modules+=("$module")
    catalogs+=("${found[0]}")
  done
else
  for catalog in Sources/*/*.docc; do
    modules+=("$(basename "$(dirname "$catalog")")")
    catalogs+=("$catalog")
  done
fi
shopt -u nullglob
((${#modules[@]} > 0)) || fail "no documentation catalog found under Sources/*/*.docc"

# A module has one catalog; a second one would be ambiguous about which landing page wins.
for index in "${!modules[@]}"; do
  for other in "${!modules[@]}"; do
    if ((other > index)) && [[ "${modules[other]}" == "${modules[index]}" ]]; then
      fail "module ${modules[index]} has two catalogs: ${catalogs[index]}, ${catalogs[other]}"
    fi
  done
done

rm -rf "$graphs_by_module"
mkdir -p "$logs" "$output"

echo "docs: building the package (log: ${logs#"$root/"}/build.log)"
if ! swift build --scratch-path "$scratch" >"$logs/build.log" 2>&1; then
  show_log "$logs/build.log"
  fail "swift build failed; see the log above"
fi

echo "docs: extracting symbol graphs (log: ${logs#"$root/"}/symbol-graphs.log)"
dump_status=0
swift package --scratch-path "$scratch" dump-symbol-graph --emit-extension-block-symbols \
  >"$logs/symbol-graphs.log" 2>&1 || dump_status=$?

# dump-symbol-graph also tries the test bundles SwiftPM synthesizes (<Package>PackageTests,
# <Package>PackageDiscoveredTests), which are never built here, and exits non-zero for them even
# when every library graph was written. Any other error is real.
if ((dump_status != 0)); then
  real_errors="$(
    grep '^error: ' "$logs/symbol-graphs.log" \
      | grep -Ev "^error: Failed to emit symbol graph for '[^']*Package(Discovered)?Tests'" \
      || true
  )"
  if [[ -n "$real_errors" ]]; then
    show_log "$logs/symbol-graphs.log"
    fail "swift package dump-symbol-graph failed; see the log above"
  fi
fi

graph_dir="$(sed -n 's/^Files written to //p' "$logs/symbol-graphs.log" | tail -n 1)"
if [[ -z "$graph_dir" || ! -d "$graph_dir" ]]; then
  show_log "$logs/symbol-graphs.log"
  fail "could not find where dump-symbol-graph wrote its files"
fi

# The path a module's pages are served under: the given base path, and with --site the module's
# own folder in the site.
hosting_path() {
  local base="${DOCS_HOSTING_BASE_PATH:-}"
  if [[ "$site" == true ]]; then
    echo "${base:+${base%/}/}$1"
  else
    echo "$base"
  fi
}

failures=()
for index in "${!modules[@]}"; do
  module="${modules[index]}"
  catalog="${catalogs[index]}"
  # A target's module name is its name with characters that are not valid in an identifier
  # replaced by underscores (my-module -> my_module); the symbol graph carries the module name.
  module_name="${module//[^A-Za-z0-9_]/_}"
  module_graphs="$graphs_by_module/$module"
  archive="$output/$module.doccarchive"
  log="$logs/$module.log"
  rm -rf "$module_graphs" "$archive"
  mkdir -p "$module_graphs"

  if [[ ! -f "$graph_dir/$module_name.symbols.json" ]]; then
    echo "docs: $module: FAILED — no symbol graph $module_name.symbols.json (not a Swift target?)"
    failures+=("$module")
    continue
  fi
  cp "$graph_dir/$module_name.symbols.json" "$module_graphs/"
  shopt -s nullglob
  for extension_graph in "$graph_dir/$module_name@"*.symbols.json; do
    cp "$extension_graph" "$module_graphs/"
  done
  shopt -u nullglob

  hosting_arguments=()
  if [[ -n "$(hosting_path "$module")" ]]; then
    hosting_arguments=(--hosting-base-path "$(hosting_path "$module")")
  fi

  started=$SECONDS
  if "$docc_bin" convert "$catalog" \
    --additional-symbol-graph-dir "$module_graphs" \
    --fallback-display-name "$module" \
    --fallback-bundle-identifier "milieu.$module" \
    --output-path "$archive" \
    --warnings-as-errors \
    ${hosting_arguments[@]+"${hosting_arguments[@]}"} \
    >"$log" 2>&1; then
    echo "docs: $module: ok ($((SECONDS - started))s) -> ${archive#"$root/"}"
  else
    status=$?
    show_log "$log"
    echo "docs: $module: FAILED (docc exit status $status; diagnostics above, log: ${log#"$root/"})"
    failures+=("$module")
  fi
done

if ((${#failures[@]} > 0)); then
  fail "documentation failed for: ${failures[*]}"
fi
echo "docs: all ${#modules[@]} module(s) documented without warnings"

# The text of a catalog page: its title, and the first paragraph under it on one line.
page_title() {
  sed -n 's/^# //p' "$1" | head -n 1
}
page_summary() {
  awk '
    titled && NF == 0 && text != "" { exit }
    titled && NF > 0 { text = text (text == "" ? "" : " ") $0 }
    /^# / && !titled { titled = 1 }
    END { print text }
  ' "$1"
}

# Markdown's inline code, symbol links and emphasis as HTML, with the text escaped.
inline_html() {
  sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' \
    -e 's/``\([^`]*\)``/<code>\1<\/code>/g' -e 's/`\([^`]*\)`/<code>\1<\/code>/g' \
    -e 's/\*\([^*]*\)\*/<em>\1<\/em>/g'
}

# The site: each archive's static-hosting content in a folder named after its module, and a
# landing page built from the catalogs: what each module is for, in its landing page's words, and
# its articles in the order of its Topics, each with its summary. Milieu's first article is the
# place to start.
if [[ "$site" == true ]]; then
  site_dir="$output/site"
  rm -rf "$site_dir"
  mkdir -p "$site_dir"
  sections=""
  start_here=""
  for index in "${!modules[@]}"; do
    module="${modules[index]}"
    catalog="${catalogs[index]}"
    cp -R "$output/$module.doccarchive/." "$site_dir/$module/"
    slug="$(echo "${module//[^A-Za-z0-9_]/_}" | tr '[:upper:]' '[:lower:]')"
    base="$module/documentation/$slug"
    landing="$catalog/$module.md"
    [[ -f "$landing" ]] || fail "$catalog has no landing page $module.md"
    sections+="    <section>"$'\n'
    sections+="      <h2><a href=\"$base/\">$module</a></h2>"$'\n'
    sections+="      <p>$(page_summary "$landing" | inline_html)</p>"$'\n'
    articles=""
    # The articles the landing page lists under Topics, as `- <doc:Name>`, in that order.
    for name in $(sed -n 's/^- <doc:\([A-Za-z0-9_-]*\)>.*/\1/p' "$landing"); do
      article="$catalog/$name.md"
      [[ -f "$article" ]] || fail "$landing lists <doc:$name>, but $article does not exist"
      href="$base/$(echo "$name" | tr '[:upper:]' '[:lower:]')/"
      [[ -f "$site_dir/$href/index.html" ]] || fail "docc wrote no page for $article at $href"
      title="$(page_title "$article" | inline_html)"
      articles+="        <li><a href=\"$href\">$title</a> — $(page_summary "$article" | inline_html)</li>"
      articles+=$'\n'
      if [[ "$module" == Milieu && -z "$start_here" ]]; then
        start_here="<a href=\"$href\">$title</a>"
      fi
    done
    if [[ -n "$articles" ]]; then
      sections+="      <ul>"$'\n'"$articles      </ul>"$'\n'
    fi
    sections+="    </section>"$'\n'
  done
  start_paragraph=""
  if [[ -n "$start_here" ]]; then
    start_paragraph="    <p class=\"start\">New to Milieu? Start with $start_here.</p>"$'\n'
  fi
  cat >"$site_dir/index.html" <<HTML
<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Milieu documentation</title>
    <style>
      body { font: 17px/1.5 -apple-system, system-ui, sans-serif; max-width: 46rem;
             margin: 2rem auto; padding: 0 1rem; color: #1d1d1f; }
      h1 { margin-bottom: 0.25rem; }
      h2 { margin: 2rem 0 0.25rem; }
      code { font-size: 0.9em; }
      .start { font-size: 1.1em; padding: 0.75rem 1rem; background: #f2f2f7; border-radius: 8px; }
      li { margin: 0.4rem 0; }
    </style>
  </head>
  <body>
    <h1>Milieu documentation</h1>
    <p>SwiftUI's environment for every Swift program. Each module is a product of the package:
      depend on the ones you use.</p>
$start_paragraph$sections  </body>
</html>
HTML
  echo "docs: site -> ${site_dir#"$root/"}/index.html"
  echo "docs: to read it: python3 -m http.server --bind 127.0.0.1 --directory ${site_dir#"$root/"} 8000,"
  echo "docs: then open http://127.0.0.1:8000/"
fi
