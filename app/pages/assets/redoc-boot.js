// Redoc renders the gateway's own OpenAPI document. A file, not an inline script: the policy allows none.
Redoc.init('/api/v1/openapi.json', { expandResponses: '200,201', nativeScrollbars: true }, document.getElementById('redoc'));
