#!/bin/sh
# An echo agent in one line of shell for `parley answer --agent-exec examples/agents/echo.sh`
# (docs/agents.md): newline-delimited JSON on standard input and output, audio as base64 `media`
# events, which it sends straight back; it answers the `incoming` event and ignores the rest.
echo '{"event":"hello","version":1,"sampleRate":8000,"audio":"base64"}'; exec sed -u -e 's/^{.*"event":"incoming".*/{"event":"answer"}/' -e '/^{"event":"\(media\|answer\)"/!d'
