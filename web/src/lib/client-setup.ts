/**
 * What a new project's owner puts in their application for the client package (`shieldci/laravel`)
 * to report here: the package, and the three values it is configured with (CLIENT-WIRE.md,
 * "Configuration on the client side") under the names its config/shieldci.php reads them from.
 */
export const INSTALL_COMMAND = 'composer require --dev shieldci/laravel';
export const ANALYZE_COMMAND = 'php artisan shield:analyze --report';

export function clientEnvLines(options: { serviceUrl: string; apiToken: string; projectId: string }): string {
  return [`SHIELDCI_API_URL=${options.serviceUrl}`, `SHIELDCI_TOKEN=${options.apiToken}`, `SHIELDCI_PROJECT_ID=${options.projectId}`].join(
    '\n',
  );
}
