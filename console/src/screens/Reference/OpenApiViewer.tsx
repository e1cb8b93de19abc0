import SwaggerUI from 'swagger-ui-react';
import 'swagger-ui-react/swagger-ui.css';

/**
 * Swagger UI, loaded only with this screen (React.lazy): most of the console's weight, and used here alone. It is
 * handed the parsed document (never a URL, so it fetches nothing itself and shows no remote validator badge), keeps
 * no authorization in storage, and reads no configuration from the address bar. Its page satisfies the console's
 * Content-Security-Policy as it stands: it loads no fonts or scripts and sets styles through the DOM, not inline.
 */
export default function OpenApiViewer({ document }: { document: Record<string, unknown> }) {
  return (
    <div className="openapi-viewer" data-testid="openapi-viewer">
      <SwaggerUI
        spec={document}
        docExpansion="list"
        defaultModelsExpandDepth={0}
        deepLinking={false}
        queryConfigEnabled={false}
        persistAuthorization={false}
        displayRequestDuration
      />
    </div>
  );
}
