# Shared by the ctest scripts that look at pages in headless Chromium: finds it (CHROMIUM; when it
# is missing, says the test is skipped and leaves CHROMIUM false for the caller to return), makes
# WORK_DIR with a fresh profile, and sets `chrome` to the command line to run it with.
find_program(CHROMIUM NAMES chromium chromium-browser)
if(NOT CHROMIUM)
  message("SKIPPED: no chromium (install it with: bash scripts/install-deps.sh --with-browser)")
else()
  file(REMOVE_RECURSE "${WORK_DIR}")
  file(MAKE_DIRECTORY "${WORK_DIR}/profile")
  set(chrome ${CHROMIUM} --headless --no-sandbox --disable-gpu --disable-quic --no-first-run
      --disable-background-networking --disable-component-update --disable-sync
      --user-data-dir=${WORK_DIR}/profile)
endif()
