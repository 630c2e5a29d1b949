"""The headers every page and event stream carries: the content security policy of the pages (inline
scripts and styles of our own, nothing from elsewhere, no frames) and no caching of what a viewer saw."""

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "connect-src 'self'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    # same-origin: an invitation link in the address bar never leaves in a Referer to another site, and the
    # browser still sends this origin (not "null") with the pages' own POSTs, which the Site requires.
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}
