#!/bin/sh
# Chromium that dies with the process that started it (core/render/browser.ts): setpriv sets the
# parent-death signal and then becomes the browser, so a worker killed with SIGKILL leaves no
# browser behind. Its own children (renderers, GPU, zygote) end when the browser process does.
exec setpriv --pdeathsig KILL /usr/bin/chromium "$@"
