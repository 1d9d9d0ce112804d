"""Browser pages: the dashboard's shared base (tenant and bank resolution, roles) and the tenant pages."""
