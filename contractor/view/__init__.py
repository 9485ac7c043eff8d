"""`contractor view`: the typestate explorer as a local web page.

`discovery` lists the classes worth analysing under a folder (read with `ast`, never
imported); `worker` runs one analysis in a child process and reports what it finds;
`session` keeps the current run, its event log and its live diagram; `server` is the
HTTP side (Starlette, served by uvicorn on 127.0.0.1, events as server-sent events);
`command` is the click command. The page's script and style are package data under
`static/`, the page itself the template `view.html.j2`.
"""
