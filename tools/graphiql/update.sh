#!/usr/bin/env bash
# Brings GraphiQL's browser files into the package (api/cartograph/api/graphiql/vendor/) from the
# npm registry's tarballs of the versions pinned below, with their licence files, and records
# what was taken (vendor/SOURCES.txt: each tarball's integrity, each file's SHA-256). To update:
# change a version here, run this script from the repository root, load /graphql in a browser,
# run tests/test_graphiql.py, and commit the vendor folder with this script.
#
# GraphiQL 3 is the last major release with a browser build (a UMD script over global React
# and ReactDOM); React 18 is the last with UMD builds. Needs `npm` (only `npm pack` is used:
# nothing is installed or run from the packages).
set -euo pipefail

GRAPHIQL=3.9.0
REACT=18.3.1

cd "$(dirname "$0")/../.."
vendor=api/cartograph/api/graphiql/vendor
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for spec in "graphiql@$GRAPHIQL" "react@$REACT" "react-dom@$REACT"; do
    name=${spec%@*}
    npm pack --silent --pack-destination "$work" "$spec" >/dev/null
    mkdir -p "$work/$name"
    tar -xzf "$work/$name-${spec##*@}.tgz" -C "$work/$name"
done

rm -rf "$vendor"
mkdir -p "$vendor"
cp "$work/graphiql/package/graphiql.min.js" "$vendor/graphiql.min.js"
cp "$work/graphiql/package/graphiql.min.css" "$vendor/graphiql.min.css"
cp "$work/graphiql/package/LICENSE" "$vendor/LICENSE.graphiql"
cp "$work/react/package/umd/react.production.min.js" "$vendor/react.production.min.js"
cp "$work/react/package/LICENSE" "$vendor/LICENSE.react"
cp "$work/react-dom/package/umd/react-dom.production.min.js" "$vendor/react-dom.production.min.js"
cp "$work/react-dom/package/LICENSE" "$vendor/LICENSE.react-dom"

{
    echo "# GraphiQL's browser files, taken by tools/graphiql/update.sh (do not edit by hand)."
    echo "# package  version  npm integrity of its tarball"
    for spec in "graphiql@$GRAPHIQL" "react@$REACT" "react-dom@$REACT"; do
        echo "$spec $(npm view "$spec" dist.integrity)"
    done
    echo "# file  SHA-256 (tests/test_graphiql.py checks them)"
    (cd "$vendor" && sha256sum -- *.js *.css LICENSE.* | awk '{print $2, $1}')
} >"$vendor/SOURCES.txt"
echo "updated $vendor:"
cat "$vendor/SOURCES.txt"
