# ctest script: sweep plots as a reader sees them. Three real sweeps of the small-copy ladder
# (cheap points) are drawn: a figure against sizes (log2 axis, size labels) with a long-named
# series per address mapping, against names (categories) with five series, and a heat map over
# two keys. Headless Chromium renders each SVG and measures every text element: none may stick
# out of the canvas, every series must have a legend entry, every size tick must be labelled.
# Skipped where Chromium is not installed. Variables: ASCENDSIM, WORKLOAD, WORK_DIR.
include(${CMAKE_CURRENT_LIST_DIR}/chromium.cmake)
if(NOT CHROMIUM)
  return()
endif()
set(RUN_TIMEOUT 300)
include(${CMAKE_CURRENT_LIST_DIR}/../run_checked.cmake)

set(sweep ${ASCENDSIM} sweep --workload ${WORKLOAD} --jobs 2)
run(${sweep} --set "devices[*].dma.chunk_size=4KiB,16KiB,64KiB,256KiB,1MiB"
    --set "devices[*].memory.address_mapping=page,bank-group-interleaved"
    --out ${WORK_DIR}/sizes.csv --plot H2D_GBps --against "devices[*].dma.chunk_size")
run(${sweep} --set "devices[*].memory.address_mapping=page,bank-group-interleaved" --set "devices[*].link.lanes=1,2,4,8,16"
    --out ${WORK_DIR}/names.csv --plot D2H_GBps --against "devices[*].memory.address_mapping")
run(${sweep} --set "devices[*].link.generation=3,4,5" --set "devices[*].link.lanes=1,2,4,8,16"
    --out ${WORK_DIR}/heat.csv --plot H2D_GBps --against "devices[*].link.lanes" --by "devices[*].link.generation")

# One page with the three drawings inline; its script measures them and leaves the result in the DOM.
set(page "<!DOCTYPE html><html><body style='margin:0'>")
foreach(name sizes names heat)
  file(READ ${WORK_DIR}/${name}.svg svg)
  string(APPEND page "<div id='${name}'>${svg}</div>")
endforeach()
string(APPEND page [=[
<script>
const result = [];
for (const div of document.querySelectorAll('div')) {
  const svg = div.querySelector('svg');
  const box = svg.getBoundingClientRect();
  let overflow = [];
  for (const t of svg.querySelectorAll('text')) {
    const r = t.getBoundingClientRect();
    if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5) {
      overflow.push(t.textContent);
    }
  }
  const lines = svg.querySelectorAll('polyline').length;
  const legend = svg.querySelectorAll('line.legend').length;
  const labels = Array.from(svg.querySelectorAll('text')).map(t => t.textContent);
  result.push(div.id + ': overflow=' + overflow.length + ' [' + overflow.join('|') + '] lines=' + lines +
              ' legend=' + legend + ' labels=' + labels.join('|'));
}
document.body.setAttribute('data-result', result.join(' ;; '));
</script></body></html>]=])
file(WRITE ${WORK_DIR}/plots.html "${page}")
run(${chrome} --window-size=1600,1200 --dump-dom file://${WORK_DIR}/plots.html)
if(NOT last_output MATCHES "data-result=\"([^\"]*)\"")
  message(FATAL_ERROR "the page's script did not run")
endif()
set(result "${CMAKE_MATCH_1}")
message(STATUS "${result}")
foreach(name sizes names heat)
  if(NOT result MATCHES "${name}: overflow=0 ")
    message(FATAL_ERROR "text sticks out of the ${name} plot: ${result}")
  endif()
endforeach()
if(NOT result MATCHES "sizes: overflow=0 \\[\\] lines=2 legend=2 ")
  message(FATAL_ERROR "the sizes plot should show 2 series, each in the legend: ${result}")
endif()
foreach(size 4KiB 8KiB 16KiB 32KiB 64KiB 128KiB 256KiB 512KiB 1MiB)
  if(NOT result MATCHES "sizes:[^;]*\\|${size}\\|")
    message(FATAL_ERROR "the size axis does not label ${size}: ${result}")
  endif()
endforeach()
if(NOT result MATCHES "names: overflow=0 \\[\\] lines=5 legend=5 [^;]*\\|page\\|bank-group-interleaved\\|")
  message(FATAL_ERROR "the names plot should show 5 series over the two mappings as categories: ${result}")
endif()
if(NOT result MATCHES "heat: overflow=0 \\[\\] lines=0 legend=0 [^;]*\\|3\\|[^;]*\\|16\\|")
  message(FATAL_ERROR "the heat map should name its rows and columns: ${result}")
endif()
