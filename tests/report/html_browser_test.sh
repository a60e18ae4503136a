#!/usr/bin/env bash
# The HTML report in a real browser: headless Chromium renders the page of the bundled example
# to a screenshot and to its DOM, with the network closed (a proxy on a port nothing listens on,
# and every host name unresolvable), so that a page that needed anything from outside would
# show it missing. The screenshot must be a PNG of the size asked for, with the page's colours
# in it; the DOM must hold the finding.
#
#   html_browser_test.sh ONNX_SHAPELINT MODEL
#
# Exits 77, which ctest reports as skipped, where Chromium is not installed (tools/dev test
# installs it).
set -euo pipefail

bin=$1
model=$2

browser=
for candidate in chromium chromium-browser; do
  if command -v "$candidate" >/dev/null; then
    browser=$candidate
    break
  fi
done
if [[ -z $browser ]]; then
  echo "chromium not found: skipped (tools/dev test installs it)"
  exit 77
fi
command -v python3 >/dev/null || {
  echo "python3 not found: skipped"
  exit 77
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/home"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

status=0
"$bin" --isolated --format html --output "$tmp/report.html" "$model" || status=$?
[[ $status -eq 1 ]] || fail "onnx-shapelint exited with $status, expected 1 (an error finding)"

width=1200
height=1600
# A profile and a home of its own: nothing of the user's is read or written. No GPU, no sandbox
# (containers have no user namespaces for it), none of the background fetches of a profile.
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run
  --no-default-browser-check --disable-extensions --disable-sync --disable-component-update
  --disable-background-networking --disable-default-apps --mute-audio
  "--user-data-dir=$tmp/profile" --proxy-server=127.0.0.1:9 "--proxy-bypass-list=<-loopback>"
  "--host-resolver-rules=MAP * ~NOTFOUND")
page="file://$tmp/report.html"

run_browser() {
  HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home XDG_CACHE_HOME=$tmp/home \
    timeout 60 "$browser" "${flags[@]}" "$@" 2>>"$tmp/browser.log"
}

start=$SECONDS
run_browser "--screenshot=$tmp/shot.png" "--window-size=$width,$height" "$page" >/dev/null ||
  fail "chromium could not take the screenshot: $(tail -5 "$tmp/browser.log")"
run_browser --dump-dom "$page" >"$tmp/dom.html" ||
  fail "chromium could not dump the DOM: $(tail -5 "$tmp/browser.log")"
echo "chromium: $((SECONDS - start)) s for the screenshot and the DOM"

# The PNG, read with the standard library alone: its size, and colours that only the page's
# own rendering has (the error badge's red, the fill of the node that fails).
python3 - "$tmp/shot.png" "$width" "$height" <<'EOF'
import struct
import sys
import zlib

path, width, height = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = open(path, "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    sys.exit("not a PNG")
chunks, at = {}, 8
while at < len(data):
    (length,) = struct.unpack(">I", data[at:at + 4])
    kind = data[at + 4:at + 8]
    chunks.setdefault(kind, []).append(data[at + 8:at + 8 + length])
    at += 12 + length
w, h, depth, color = struct.unpack(">IIBB", chunks[b"IHDR"][0][:10])
if (w, h) != (width, height):
    sys.exit(f"the screenshot is {w}x{h}, not {width}x{height}")
if depth != 8 or color not in (2, 6):
    sys.exit(f"unexpected PNG format: depth {depth}, colour type {color}")
bpp = 3 if color == 2 else 4
raw = zlib.decompress(b"".join(chunks[b"IDAT"]))
stride = w * bpp
prev = bytearray(stride)
colours = set()
wanted = {"error badge": (0xB3, 0x26, 0x1E), "failing node": (0xFF, 0xE3, 0xE0)}
seen = set()
for y in range(h):
    kind = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    if kind == 1:
        for i in range(bpp, stride):
            line[i] = (line[i] + line[i - bpp]) & 0xFF
    elif kind == 2:
        line = bytearray((a + b) & 0xFF for a, b in zip(line, prev))
    elif kind == 3:
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
    elif kind == 4:
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            line[i] = (line[i] + pred) & 0xFF
    row = set(bytes(line[i:i + 3]) for i in range(0, stride, bpp))
    colours |= row
    for name, rgb in wanted.items():
        if bytes(rgb) in row:
            seen.add(name)
    prev = line
if len(colours) < 32:
    sys.exit(f"the screenshot looks blank: {len(colours)} colours")
missing = set(wanted) - seen
if missing:
    sys.exit(f"the screenshot lacks the colours of: {', '.join(sorted(missing))}")
print(f"screenshot: {w}x{h}, {len(colours)} colours, {len(data)} bytes")
EOF

# The DOM as the browser built it: the finding, its rule, the nodes of the drawing.
for expected in 'data-rule="SL001"' '<span class="code">SL001</span>' 'baked-pool-kernel' \
  'data-op="AveragePool"' 'data-label="/AveragePool"' '<svg class="path"' \
  '1 error, 0 warnings in 1 model'; do
  grep -qF -- "$expected" "$tmp/dom.html" || fail "the DOM lacks $expected"
done
echo "ok"
