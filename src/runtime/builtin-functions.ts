import { FunctionRegistry } from './function-registry';
import { echoFunction } from './functions/echo.function';
import { perUserCounterFunction } from './functions/per-user-counter.function';
import { scriptedFunction } from './functions/scripted.function';

/** A registry holding every built-in `_type`. */
export function builtinRegistry(): FunctionRegistry {
  return new FunctionRegistry()
    .register(echoFunction)
    .register(scriptedFunction)
    .register(perUserCounterFunction);
}
