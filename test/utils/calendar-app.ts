import type { NestExpressApplication } from '@nestjs/platform-express';
import { createApp } from '../../src/main';
import { freePort } from './cli';
import { calendarWorkflowYaml, oauthProvider, startAuthServer, type AuthServer } from './oidc-server';
import { configFrom } from './test-app';

export interface CalendarApp {
  auth: AuthServer;
  app: NestExpressApplication;
  /** Where the app listens, also its `public_base_url` (the redirect URI a browser comes back to). */
  url: string;
  close(): Promise<void>;
}

/**
 * The calendar workflow (it asks for an OAuth consent) on a real authorization server, served on a
 * port known before it starts: the authorization server must list the app's redirect URI, and a
 * browser must reach the app at the URL the config names.
 */
export async function startCalendarApp(): Promise<CalendarApp> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const redirect = `${url}/auth/redirect`;
  const auth = await startAuthServer({
    clients: [{ client_id: 'interlude', client_secret: 'secret', redirect_uris: [redirect] }],
  });
  const provider = oauthProvider(auth, {
    client_id: 'interlude',
    client_secret: 'secret',
    redirect_uri: redirect,
  });
  const app = await createApp(
    configFrom(`
general:
  front_end: { public_base_url: '${url}' }
  outbound: { allow_hosts: [127.0.0.1] }
${calendarWorkflowYaml(auth, provider)}`),
    { logger: false },
  );
  await app.listen(port, '127.0.0.1');
  return {
    auth,
    app,
    url,
    close: async () => {
      await app.close();
      await auth.close();
    },
  };
}
