import { SetMetadata } from '@nestjs/common';

export const PAGE = 'interlude:page';

/**
 * A controller that serves a page and its files to a browser rather than an API: another method on
 * its paths is 404, as from a file server, not 405 (the page at `/` shadows no other request).
 */
export const Page = (): ClassDecorator => SetMetadata(PAGE, true);
