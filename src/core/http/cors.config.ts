import { IsArray, IsBoolean, IsInt, IsOptional, IsString, Min, ValidateBy } from 'class-validator';
import { Optional } from '../validation/optional.decorator';

/** `general.front_end.cors` of the config file: declared here, where CORS is answered. */
export class CorsConfig {
  @Optional()
  @ValidateBy({
    name: 'noWildcardWithCredentials',
    validator: {
      validate: (origins: unknown, args) =>
        !(Array.isArray(origins) && origins.includes('*') && (args?.object as CorsConfig).allow_credentials),
      defaultMessage: () =>
        "'*' cannot be combined with allow_credentials: true (any site could act as the user); list the origins",
    },
  })
  @IsArray()
  @IsString({ each: true })
  allow_origins: string[] = [];
  @IsOptional() @IsString() allow_origin_regex: string | null = null;
  @Optional() @IsArray() @IsString({ each: true }) allow_methods: string[] = ['GET', 'POST', 'OPTIONS'];
  @Optional() @IsArray() @IsString({ each: true }) allow_headers: string[] = ['*'];
  @Optional() @IsBoolean() allow_credentials = false;
  @Optional() @IsArray() @IsString({ each: true }) expose_headers: string[] = [];
  @Optional() @Min(0) @IsInt() max_age = 600;
}
