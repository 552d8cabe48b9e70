/**
 * The HTML of `/docs`: Swagger UI (its files served by the gateway, see serveDocsAsset)
 * rendering the gateway's own /openapi.json. Relative URLs, so the page works behind a path prefix.
 */
export function renderDocsPage(): string {
  return PAGE;
}

/** Files of the swagger-ui-dist package the page loads, by the name used in `/docs/assets/<name>`. */
export const DOCS_ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Model gateway API</title>
<link rel="stylesheet" href="docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"><noscript>This page needs JavaScript; the API description itself is at <a href="openapi.json">/openapi.json</a>.</noscript></div>
<script src="docs/assets/swagger-ui-bundle.js"></script>
<script>
window.ui = SwaggerUIBundle({ url: 'openapi.json', dom_id: '#swagger-ui', deepLinking: true, tryItOutEnabled: false });
</script>
</body>
</html>
`;
