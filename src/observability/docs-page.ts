/**
 * The HTML of `/docs`: RapiDoc (served by the gateway itself, see serveDocsRenderer) rendering
 * the gateway's own /openapi.json. Relative URLs, so the page works behind a path prefix.
 */
export function renderDocsPage(): string {
  return PAGE;
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Model gateway API</title>
<script type="module" src="docs/rapidoc-min.js"></script>
</head>
<body>
<rapi-doc spec-url="openapi.json" render-style="read" show-header="false" allow-try="true" allow-server-selection="false" theme="light">
<noscript><p>This page needs JavaScript; the API description itself is at <a href="openapi.json">/openapi.json</a>.</p></noscript>
</rapi-doc>
</body>
</html>
`;
