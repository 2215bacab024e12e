// Imported first by the CLI, so that it runs before the other modules load: see `startingFromNow`.
import { startingFromNow } from './gc-tuning';

startingFromNow();
