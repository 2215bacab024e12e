import { FunctionRegistry } from './function-registry';
import { echoFunction } from './functions/echo.function';
import { scriptedFunction } from './functions/scripted.function';

/** A registry holding every built-in `_type`. */
export function builtinRegistry(): FunctionRegistry {
  return new FunctionRegistry().register(echoFunction).register(scriptedFunction);
}
